# radial_add_test(<name> SOURCES <files...> [LIBRARIES <libs...>] [LABELS <labels...>]
#                 [ARGS <args...>])
# A Catch2 test executable registered with CTest (run with ARGS, e.g. a tag filter). It runs
# from bin/, so the plugin folder beside it (<bin>/../lib/radial/plugins) is found as the host
# finds it.
function(radial_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES;LABELS;DEPENDS;ARGS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE radial_test_support ${ARG_LIBRARIES})
  add_test(NAME ${name} COMMAND ${name} ${ARG_ARGS})
  set_tests_properties(${name} PROPERTIES
    LABELS "${ARG_LABELS}"
    ENVIRONMENT "RADIAL_PLUGIN_PATH=;OPENBLAS_NUM_THREADS=1")
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  # Plugins are loaded at run time, so every test depends on all of them being built.
  if(TARGET radial_all_plugins)
    add_dependencies(${name} radial_all_plugins)
  endif()
endfunction()
