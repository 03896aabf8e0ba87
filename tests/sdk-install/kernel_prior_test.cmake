# cmake -P script run by the sdk-install-kernel-prior test (see CMakeLists.txt): installs this
# build to a fresh prefix, builds kernel-prior/ (a kernel prior) out of tree against it, runs the
# plugin's tests (with the conformance kit), then trains prbf with it through the installed host,
# next to a weight penalty. The work folder is removed after success and kept after a failure.
set(SDK_TEST sdk-install-kernel-prior)
set(SDK_TEST_VARS RADIAL_BUILD_DIR RADIAL_PLUGIN_DIR RADIAL_DATA RADIAL_GENERATOR RADIAL_LIBDIR
    RADIAL_BINDIR)
include("${CMAKE_CURRENT_LIST_DIR}/sdk_test_common.cmake")

# 1-2. Install; the plugin, out of tree, against the prefix only, with its tests.
install_and_build_plugin(kullback-leibler)

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
