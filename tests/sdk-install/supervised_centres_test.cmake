# cmake -P script run by the sdk-install-supervised-centres test (see CMakeLists.txt): installs
# this build to a fresh prefix, builds the SDK's supervised centre-learner template
# (sdk/templates/supervised-centre-learner, kernel matching pursuit) out of tree against it,
# runs its tests (with the conformance kit), then trains with it through the installed host:
# the learner gets the pipeline's basis (no kernel of its own, no width setting), and the width
# scale the trainer chooses reaches it. The work folder is removed after success and kept after
# a failure.
set(SDK_TEST sdk-install-supervised-centres)
set(SDK_TEST_VARS RADIAL_BUILD_DIR RADIAL_PLUGIN_DIR RADIAL_DATA RADIAL_GENERATOR RADIAL_LIBDIR
    RADIAL_BINDIR)
include("${CMAKE_CURRENT_LIST_DIR}/sdk_test_common.cmake")

# 1-2. Install; the template, out of tree, against the prefix only, with its tests.
install_and_build_plugin(matching-pursuit)

# 3. The installed host trains with it: the gaussian basis with its default width rule and
# width_scale = "choose", nothing set for the learner.
file(WRITE "${work}/pipeline.toml" "name = \"matching pursuit centres\"
seed = 1

[data]
train = \"${RADIAL_DATA}\"
target = \"label\"

[basis]
plugin = \"gaussian\"

[centres]
plugin = \"matching-pursuit\"
count = 8

[output]
plugin = \"least-squares\"
")
set(with_plugin "${CMAKE_COMMAND}" -E env "RADIAL_PLUGIN_PATH=${plugin_build}")
run("radial train with centres matching-pursuit" ${with_plugin} "${host}" train
    "${work}/pipeline.toml" --quiet --model "${work}/mp.model" --report "${work}/report.json")
file(READ "${work}/report.json" report)
string(JSON centres GET "${report}" centres count)
string(JSON curves LENGTH "${report}" selection curves)
string(JSON error GET "${report}" train error_rate)
if(NOT centres EQUAL 8)
  fail("the model has ${centres} centres, expected 8")
endif()
if(curves LESS 2)
  fail("the width scale was not chosen over several scales (${curves} curves)")
endif()
if(NOT error LESS 0.3)
  fail("training error rate ${error}: the centres do not fit the data")
endif()
message(STATUS "sdk-install-supervised-centres: ${centres} centres, ${curves} width scales "
               "tried, training error rate ${error}: ok")

file(REMOVE_RECURSE "${work}")
message(STATUS "sdk-install-supervised-centres: passed")
