# cmake -P script run by the sdk-install-output-rule test (see CMakeLists.txt): installs this
# build to a fresh prefix, builds output-rule/ (an output layer with its own prediction rule)
# out of tree against it, runs the plugin's tests, then trains and predicts with the installed
# host. A model using the plugin's rule predicts with the plugin installed and is refused, naming
# the plugin, without it. The work folder is removed after success and kept after a failure.
cmake_minimum_required(VERSION 3.25)

foreach(var RADIAL_BUILD_DIR RADIAL_PLUGIN_DIR RADIAL_DATA RADIAL_GENERATOR RADIAL_LIBDIR
            RADIAL_BINDIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "sdk-install-output-rule: ${var} is not set")
  endif()
endforeach()

execute_process(COMMAND mktemp -d /tmp/radial-output-rule.XXXXXX
  OUTPUT_VARIABLE work RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT IS_DIRECTORY "${work}")
  message(FATAL_ERROR "sdk-install-output-rule: cannot create a temporary folder (mktemp: ${rc})")
endif()
message(STATUS "sdk-install-output-rule: working in ${work}")

function(fail what)
  message(FATAL_ERROR "sdk-install-output-rule FAILED: ${what}\n(work folder kept: ${work})")
endfunction()

# run(<step> <command...>): runs a command, fails the test with everything it printed.
function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " shown "${ARGN}")
    fail("${step}\n  command: ${shown}\n  exit: ${rc}\n--- stdout ---\n${out}\n--- stderr ---\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
  message(STATUS "sdk-install-output-rule: ${step}: ok")
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
run("configure the class-means plugin with find_package(Radial)" "${CMAKE_COMMAND}"
    ${configure_args})
run("build the class-means plugin" "${CMAKE_COMMAND}" --build "${plugin_build}")
run("class-means tests" "${CMAKE_CTEST_COMMAND}" --test-dir "${plugin_build}" --output-on-failure)

# 3. The installed host trains with the plugin and predicts through its rule.
file(WRITE "${work}/pipeline.toml" "name = \"class means, probit rule\"
seed = 1

[data]
train = \"${RADIAL_DATA}\"
target = \"label\"

[basis]
plugin = \"gaussian\"

[centres]
plugin = \"kmeans\"
count = 6

[output]
plugin = \"class-means\"
scale = 3.0
")
set(with_plugin "${CMAKE_COMMAND}" -E env "RADIAL_PLUGIN_PATH=${plugin_build}")
run("radial train with output class-means" ${with_plugin} "${host}" train "${work}/pipeline.toml"
    --quiet --model "${work}/probit.model" --report "${work}/report.json")
run("radial predict through the probit rule" ${with_plugin} "${host}" predict
    "${work}/probit.model" "${RADIAL_DATA}" --probabilities)
string(REGEX MATCH "^label,p_0,p_1\n[01],0\\.[0-9]+,0\\.[0-9]+\n" head "${run_output}")
if(NOT head)
  fail("`radial predict --probabilities` did not print two probit probabilities per row:\n${run_output}")
endif()

# 4. Without the plugin the model cannot be read: the message names the rule and the plugin.
execute_process(COMMAND "${CMAKE_COMMAND}" -E env "RADIAL_PLUGIN_PATH=" "${host}" predict
                        "${work}/probit.model" "${RADIAL_DATA}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2)
  fail("predict without the plugin exited ${rc}, expected 2:\n${out}\n${err}")
endif()
foreach(expected "probit" "class-means")
  string(FIND "${err}" "${expected}" at)
  if(at EQUAL -1)
    fail("predict without the plugin did not name '${expected}':\n${err}")
  endif()
endforeach()
message(STATUS "sdk-install-output-rule: predict without the plugin refused: ok")

file(REMOVE_RECURSE "${work}")
message(STATUS "sdk-install-output-rule: passed")
