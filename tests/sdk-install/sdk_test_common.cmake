# Shared by the sdk-install scripts (cmake -P). Set SDK_TEST (the test's name) and SDK_TEST_VARS
# (the -D variables it needs) before include(). Gives a fresh work folder `work`, run() and
# fail(), which stop the test with the step's name, command, exit code and output (the work
# folder is kept after a failure), and configure_out_of_tree().
cmake_minimum_required(VERSION 3.25)

foreach(var ${SDK_TEST_VARS})
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "${SDK_TEST}: ${var} is not set")
  endif()
endforeach()

execute_process(COMMAND mktemp -d /tmp/radial-${SDK_TEST}.XXXXXX
  OUTPUT_VARIABLE work RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT IS_DIRECTORY "${work}")
  message(FATAL_ERROR "${SDK_TEST}: cannot create a temporary folder (mktemp: ${rc})")
endif()
message(STATUS "${SDK_TEST}: working in ${work}")

function(fail what)
  message(FATAL_ERROR "${SDK_TEST} FAILED: ${what}\n(work folder kept: ${work})")
endfunction()

# run(<step> <command...>): runs a command, fails the test with everything it printed.
function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " shown "${ARGN}")
    fail("${step}\n  command: ${shown}\n  exit: ${rc}\n--- stdout ---\n${out}\n--- stderr ---\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
  message(STATUS "${SDK_TEST}: ${step}: ok")
endfunction()

# configure_out_of_tree(<what> <source> <binary> <prefix>): configures a plugin project with
# find_package(Radial) against <prefix> only, with this build's generator, compiler and type.
function(configure_out_of_tree what source binary prefix)
  set(args -S "${source}" -B "${binary}" -G "${RADIAL_GENERATOR}"
      "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
  if(RADIAL_CXX_COMPILER)
    list(APPEND args "-DCMAKE_CXX_COMPILER=${RADIAL_CXX_COMPILER}")
  endif()
  if(RADIAL_BUILD_TYPE)
    list(APPEND args "-DCMAKE_BUILD_TYPE=${RADIAL_BUILD_TYPE}")
  endif()
  run("configure ${what} with find_package(Radial)" "${CMAKE_COMMAND}" ${args})
endfunction()

# install_and_build_plugin(<what>): installs this build to ${work}/prefix, then configures,
# builds and tests RADIAL_PLUGIN_DIR out of tree against it. Sets `prefix`, `host` and
# `plugin_build` in the caller.
macro(install_and_build_plugin what)
  set(prefix "${work}/prefix")
  run("install to ${prefix}" "${CMAKE_COMMAND}" --install "${RADIAL_BUILD_DIR}" --prefix "${prefix}")
  set(host "${prefix}/${RADIAL_BINDIR}/radial")
  set(plugin_build "${work}/plugin-build")
  configure_out_of_tree("the ${what} plugin" "${RADIAL_PLUGIN_DIR}" "${plugin_build}" "${prefix}")
  run("build the ${what} plugin" "${CMAKE_COMMAND}" --build "${plugin_build}")
  run("${what} tests" "${CMAKE_CTEST_COMMAND}" --test-dir "${plugin_build}" --output-on-failure)
endmacro()
