# radial_add_plugin(<target> SOURCES <files...>
#                   [TEST_SOURCES <files...>] [TEST_LIBRARIES <libs...>] [TEST_LABELS <labels...>]
#                   [PORTABLE_TEST])
#
# Builds a Radial plugin: a MODULE library linked to the framework, with the symbols it does not
# export hidden and the compiler's common warnings on. In Radial's own tree it lands in the
# build's plugin folder; out of tree it is built in the project's binary folder (point
# RADIAL_PLUGIN_PATH there). Either way `install` puts it in <prefix>/lib/radial/plugins, the
# folder an installed `radial` host searches.
#
# TEST_SOURCES also make the plugin's Catch2 test: target test-<name> for target radial-<name>,
# labelled `plugin` and TEST_LABELS, with the plugin's folder on its include path, linked to
# Radial::testing (Catch2's main and the radial/testing/ checks: do not define
# CATCH_CONFIG_MAIN). In Radial's own tree it is one of Radial's tests (radial_add_test); out of
# tree it needs include(CTest) before the call and Catch2 v2 installed, is built with
# RADIAL_PLUGIN_FILE defined as the plugin's file (radial::conformance::plugin_under_test() loads
# it) and RADIAL_PLUGIN_BUILD_DIR as its folder (radial::testing::plugin_dir()), and runs with
# one BLAS thread.
#
# PORTABLE_TEST runs that test a second time, as test-<name>-portable, on the framework's
# portable path (RADIAL_PORTABLE_KERNELS=1: BLAS instead of the AVX-512 kernels), for a plugin
# whose results go through those kernels.
include(GNUInstallDirs)

# radial_project_defaults(): the project settings Radial is built with, for an out-of-tree plugin
# to be built the same way (after project() and find_package(Radial)): C++17 without compiler
# extensions, the Release build type unless one is given, and include(CTest), after which
# radial_add_plugin builds the tests (BUILD_TESTING, CTest's default, and Catch2 v2 installed).
# A macro, so that the settings are the caller's.
macro(radial_project_defaults)
  set(CMAKE_CXX_STANDARD 17)
  set(CMAKE_CXX_STANDARD_REQUIRED ON)
  set(CMAKE_CXX_EXTENSIONS OFF)
  if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
    set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
  endif()
  include(CTest)
endmacro()

function(radial_add_plugin target)
  cmake_parse_arguments(ARG "PORTABLE_TEST" "" "SOURCES;TEST_SOURCES;TEST_LIBRARIES;TEST_LABELS" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "radial_add_plugin(${target}): SOURCES is required")
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Radial::framework Radial::sdk)
  target_compile_options(${target} PRIVATE
    "$<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-Wall;-Wextra>")
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    PREFIX "lib"
    # Installed beside libradial.so's folder: <prefix>/lib/radial/plugins -> <prefix>/lib.
    INSTALL_RPATH "$ORIGIN/../.."
    # The same path in the build: no padded build RPATH with empty (current-folder) entries.
    BUILD_WITH_INSTALL_RPATH ON)
  if(TARGET radial_all_plugins)
    add_dependencies(radial_all_plugins ${target})
  endif()
  if(DEFINED RADIAL_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${RADIAL_PLUGIN_OUTPUT_DIR}")
  endif()
  if(DEFINED RADIAL_PLUGIN_SUBDIR)
    set(destination "${RADIAL_PLUGIN_SUBDIR}")
  else()
    set(destination "${CMAKE_INSTALL_LIBDIR}/radial/plugins")
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION "${destination}")
  if(NOT ARG_TEST_SOURCES OR NOT BUILD_TESTING)
    return()
  endif()
  string(REGEX REPLACE "^radial-" "" name "${target}")
  if(COMMAND radial_add_test)
    radial_add_test(test-${name}
      SOURCES ${ARG_TEST_SOURCES}
      LIBRARIES ${ARG_TEST_LIBRARIES}
      LABELS plugin ${ARG_TEST_LABELS})
  else()
    if(NOT TARGET Radial::testing)
      message(FATAL_ERROR "radial_add_plugin(${target}): TEST_SOURCES need Radial::testing, "
                          "which the Radial package provides when Catch2 v2 is installed "
                          "(Debian: apt-get install catch2)")
    endif()
    add_executable(test-${name} ${ARG_TEST_SOURCES})
    target_link_libraries(test-${name} PRIVATE Radial::testing ${ARG_TEST_LIBRARIES})
    target_compile_definitions(test-${name} PRIVATE
      RADIAL_PLUGIN_FILE="$<TARGET_FILE:${target}>"
      RADIAL_PLUGIN_BUILD_DIR="$<TARGET_FILE_DIR:${target}>")
    add_dependencies(test-${name} ${target})
    add_test(NAME test-${name} COMMAND test-${name})
    set_tests_properties(test-${name} PROPERTIES
      LABELS "plugin;${ARG_TEST_LABELS}" ENVIRONMENT "OPENBLAS_NUM_THREADS=1")
  endif()
  target_include_directories(test-${name} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  if(ARG_PORTABLE_TEST)
    add_test(NAME test-${name}-portable COMMAND test-${name})
    set_tests_properties(test-${name}-portable PROPERTIES LABELS "plugin;${ARG_TEST_LABELS}"
      ENVIRONMENT "RADIAL_PLUGIN_PATH=;OPENBLAS_NUM_THREADS=1;RADIAL_PORTABLE_KERNELS=1")
  endif()
endfunction()
