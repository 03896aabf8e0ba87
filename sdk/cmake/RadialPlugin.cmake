# radial_add_plugin(<target> SOURCES <files...>)
#
# Builds a Radial plugin: a MODULE library linked to the framework, with the symbols it does not
# export hidden. In Radial's own tree it lands in the build's plugin folder; out of tree it is
# built in the project's binary folder (point RADIAL_PLUGIN_PATH there). Either way `install`
# puts it in <prefix>/lib/radial/plugins, the folder an installed `radial` host searches.
include(GNUInstallDirs)

function(radial_add_plugin target)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "radial_add_plugin(${target}): SOURCES is required")
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Radial::framework Radial::sdk)
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
endfunction()
