# cmake -P script run by the sdk-install-output-rule test (see CMakeLists.txt): installs this
# build to a fresh prefix, builds output-rule/ (an output layer with its own prediction rule)
# out of tree against it, runs the plugin's tests, then trains and predicts with the installed
# host. A model using the plugin's rule predicts with the plugin installed and is refused, naming
# the plugin, without it. The work folder is removed after success and kept after a failure.
set(SDK_TEST sdk-install-output-rule)
set(SDK_TEST_VARS RADIAL_BUILD_DIR RADIAL_PLUGIN_DIR RADIAL_DATA RADIAL_GENERATOR RADIAL_LIBDIR
    RADIAL_BINDIR)
include("${CMAKE_CURRENT_LIST_DIR}/sdk_test_common.cmake")

# 1-2. Install; the plugin, out of tree, against the prefix only, with its tests.
install_and_build_plugin(class-means)

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
