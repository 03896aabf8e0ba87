# radial_add_plugin(<target> SOURCES <files...>)
#
# Builds a Radial plugin: a MODULE library linked to the framework, with the symbols it does not
# export hidden. In Radial's own tree it lands in the build's plugin folder; out of tree, install
# it anywhere and point RADIAL_PLUGIN_PATH there.
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
    PREFIX "lib")
  if(TARGET radial_all_plugins)
    add_dependencies(radial_all_plugins ${target})
  endif()
  if(DEFINED RADIAL_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY "${RADIAL_PLUGIN_OUTPUT_DIR}"
      INSTALL_RPATH "$ORIGIN/../..")
  endif()
endfunction()
