# cmake -P script run by the sdk-install-kernel-prior test (see CMakeLists.txt): installs this
# build to a fresh prefix, builds kernel-prior/ (a kernel prior) out of tree against it, runs the
# plugin's tests (with the conformance kit), then trains prbf with it through the installed host,
# next to a weight penalty. The work folder is removed after success and kept after a failure.
cmake_minimum_required(VERSION 3.25)

foreach(var RADIAL_BUILD_DIR RADIAL_PLUGIN_DIR RADIAL_DATA RADIAL_GENERATOR RADIAL_LIBDIR
            RADIAL_BINDIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "sdk-install-kernel-prior: ${var} is not set")
  endif()
endforeach()

execute_process(COMMAND mktemp -d /tmp/radial-kernel-prior.XXXXXX
  OUTPUT_VARIABLE work RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT IS_DIRECTORY "${work}")
  message(FATAL_ERROR "sdk-install-kernel-prior: cannot create a temporary folder (mktemp: ${rc})")
endif()
message(STATUS "sdk-install-kernel-prior: working in ${work}")

function(fail what)
  message(FATAL_ERROR "sdk-install-kernel-prior FAILED: ${what}\n(work folder kept: ${work})")
endfunction()

# run(<step> <command...>): runs a command, fails the test with everything it printed.
function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " shown "${ARGN}")
    fail("${step}\n  command: ${shown}\n  exit: ${rc}\n--- stdout ---\n${out}\n--- stderr ---\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
  message(STATUS "sdk-install-kernel-prior: ${step}: ok")
endfunction()

# 1. Install.
set(prefix "${work}/prefix")
run("install to ${prefix}" "${CMAKE_COMMAND}" --install "${RADIAL_BUILD_DIR}" --prefix "${prefix}")
set(host "${prefix}/${RADIAL_BINDIR}/radial")

# 2. The plugin, out of tree, against the prefix only.
set(plugin_build "${work}/plugin-build")
set(configure_args -S "${RADIAL_PLUGIN_DIR}" -B "${plugin_build}" -G "${RADIAL_GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(RADIAL_CXX_COMPILER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${RADIAL_CXX_COMPILER}")
endif()
if(RADIAL_BUILD_TYPE)
  list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${RADIAL_BUILD_TYPE}")
endif()
run("configure the kullback-leibler plugin with find_package(Radial)" "${CMAKE_COMMAND}"
    ${configure_args})
run("build the kullback-leibler plugin" "${CMAKE_COMMAND}" --build "${plugin_build}")
run("kullback-leibler tests" "${CMAKE_CTEST_COMMAND}" --test-dir "${plugin_build}"
    --output-on-failure)

# 3. The installed host trains prbf with the plugin as its kernel prior, beside a weight penalty.
file(WRITE "${work}/pipeline.toml" "name = \"prbf, Kullback-Leibler prior\"
seed = 1

[data]
train = \"${RADIAL_DATA}\"

[basis]
plugin = \"gaussian\"
density = true

[centres]
plugin = \"prbf\"
count = 4
covariance = \"diagonal\"
iterations = 5

[output]
plugin = \"irls\"

[weight-penalty]
plugin = \"weight-decay\"
alpha = 0.1

[kernel-prior]
plugin = \"kullback-leibler\"
alpha = 2.0
")
set(with_plugin "${CMAKE_COMMAND}" -E env "RADIAL_PLUGIN_PATH=${plugin_build}")
run("radial train with kernel-prior kullback-leibler" ${with_plugin} "${host}" train
    "${work}/pipeline.toml" --quiet --report "${work}/report.json")
file(READ "${work}/report.json" report)
string(JSON log_prior GET "${report}" centres series log_prior 0)
string(JSON penalty GET "${report}" output figures penalty)
if(log_prior EQUAL 0 OR NOT log_prior MATCHES "^-")
  fail("prbf did not use the kernel prior: log_prior[0] = ${log_prior} (expected < 0)")
endif()
if(NOT penalty GREATER 0)
  fail("irls did not use the weight penalty: figures.penalty = ${penalty} (expected > 0)")
endif()
message(STATUS "sdk-install-kernel-prior: both priors took effect: ok")

file(REMOVE_RECURSE "${work}")
message(STATUS "sdk-install-kernel-prior: passed")
