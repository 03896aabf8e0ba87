# cmake -P script run by the sdk-install test (see CMakeLists.txt). Each step stops the test with
# the step's name, command, exit code and output. The work folder is removed after success and
# kept, with its path printed, after a failure.
set(SDK_TEST sdk-install)
set(SDK_TEST_VARS RADIAL_BUILD_DIR RADIAL_TEMPLATE_DIR RADIAL_TEMPLATES_DIR RADIAL_DATA
    RADIAL_GENERATOR RADIAL_LIBDIR RADIAL_BINDIR RADIAL_INCLUDEDIR)
include("${CMAKE_CURRENT_LIST_DIR}/sdk_test_common.cmake")

function(require_file path why)
  if(NOT EXISTS "${path}")
    fail("${why}: ${path} does not exist")
  endif()
endfunction()

# 1. Install, then move the prefix: nothing may depend on where it was installed.
set(staging "${work}/staging")
set(prefix "${work}/prefix")
run("install to ${staging}" "${CMAKE_COMMAND}" --install "${RADIAL_BUILD_DIR}" --prefix "${staging}")
file(RENAME "${staging}" "${prefix}")

set(cmake_dir "${prefix}/${RADIAL_LIBDIR}/cmake/Radial")
foreach(file RadialConfig.cmake RadialConfigVersion.cmake RadialTargets.cmake
             RadialTestingTargets.cmake RadialDependencies.cmake RadialPlugin.cmake)
  require_file("${cmake_dir}/${file}" "the CMake package is incomplete")
endforeach()
foreach(header radial/plugin/registration.hpp radial/plugin/loader.hpp radial/core/version.hpp radial/sdk/plugin.hpp
               radial/sdk/configured.hpp radial/sdk/conformance.hpp
               radial/testing/basis_checks.hpp radial/testing/output_layer_checks.hpp
               radial/testing/plugin_checks.hpp radial/testing/registry.hpp)
  require_file("${prefix}/${RADIAL_INCLUDEDIR}/${header}" "a header was not installed")
endforeach()
require_file("${prefix}/${RADIAL_LIBDIR}/libradial.so" "the framework library was not installed")
require_file("${prefix}/${RADIAL_LIBDIR}/libradial-testing.a" "Radial::testing was not installed")
# In-tree only: it names this build's source and build folders.
if(EXISTS "${prefix}/${RADIAL_INCLUDEDIR}/radial/testing/paths.hpp")
  fail("radial/testing/paths.hpp was installed: it names the build tree")
endif()
set(host "${prefix}/${RADIAL_BINDIR}/radial")
require_file("${host}" "the radial host was not installed")
file(GLOB installed_plugins "${prefix}/${RADIAL_LIBDIR}/radial/plugins/libradial-*.so")
if(NOT installed_plugins)
  fail("no plugin was installed in ${prefix}/${RADIAL_LIBDIR}/radial/plugins")
endif()
file(READ "${cmake_dir}/RadialTargets.cmake" targets_text)
if(targets_text MATCHES "${work}")
  fail("RadialTargets.cmake names the install folder: the package is not relocatable")
endif()

# No installed ELF file searches the current folder or an absolute build path: a library planted there must never be loaded.
if(RADIAL_RUNPATH_CHECK)
  run("RUNPATH of every installed ELF file" "${RADIAL_RUNPATH_CHECK}" "${prefix}/${RADIAL_BINDIR}"
      "${prefix}/${RADIAL_LIBDIR}")
endif()

# 2. The template, out of tree, against the moved prefix only.
set(template_build "${work}/template-build")
configure_out_of_tree("sdk/templates/basis" "${RADIAL_TEMPLATE_DIR}" "${template_build}" "${prefix}")
file(STRINGS "${template_build}/CMakeCache.txt" radial_dir REGEX "^Radial_DIR:")
if(NOT radial_dir MATCHES "${cmake_dir}")
  fail("the template found another Radial package: ${radial_dir} (expected ${cmake_dir})")
endif()
run("build sdk/templates/basis" "${CMAKE_COMMAND}" --build "${template_build}")
require_file("${template_build}/libradial-basis-exponential.so" "the template plugin was not built")
if(RADIAL_RUNPATH_CHECK)
  run("RUNPATH of the out-of-tree plugin" "${RADIAL_RUNPATH_CHECK}"
      "${template_build}/libradial-basis-exponential.so")
endif()
run("template tests (Radial::testing, conformance kit)" "${CMAKE_CTEST_COMMAND}" --test-dir "${template_build}"
    --output-on-failure)

# 3. The installed host loads the template through RADIAL_PLUGIN_PATH ...
run("radial plugins show exponential"
    "${CMAKE_COMMAND}" -E env "RADIAL_PLUGIN_PATH=${template_build}"
    "${host}" plugins show exponential)
foreach(expected "exponential 1.0.0 (basis)" "width (real > 0), default 1.0"
                 "library: ${template_build}/libradial-basis-exponential.so")
  string(FIND "${run_output}" "${expected}" at)
  if(at EQUAL -1)
    fail("`radial plugins show exponential` did not print \"${expected}\":\n${run_output}")
  endif()
endforeach()

# ... and finds the installed plugins beside itself (<prefix>/bin/../lib/radial/plugins).
list(GET installed_plugins 0 first_plugin)
get_filename_component(first_name "${first_plugin}" NAME_WE)
string(REGEX REPLACE "^libradial-(basis|centres|output|weight-penalty|kernel-prior)-" "" first_id "${first_name}")
run("radial plugins show ${first_id} (installed)"
    "${CMAKE_COMMAND}" -E env "RADIAL_PLUGIN_PATH=" "${host}" plugins show "${first_id}")
string(FIND "${run_output}" "library: ${prefix}/" at)
if(at EQUAL -1)
  fail("the installed host did not load ${first_id} from its own prefix:\n${run_output}")
endif()

# 4. The templates of the other slots (sdk/templates/*), each out of tree against the prefix
# with its tests; then the installed host trains one pipeline made of four of them, and one
# with the supervised centre learner. (The kernel-prior template has a test of its own.)
set(plugin_path "")
foreach(slot basis-with-widths centre-learner output-layer weight-penalty
             supervised-centre-learner refine)
  set(slot_build "${work}/template-${slot}")
  configure_out_of_tree("sdk/templates/${slot}" "${RADIAL_TEMPLATES_DIR}/${slot}" "${slot_build}"
                        "${prefix}")
  run("build sdk/templates/${slot}" "${CMAKE_COMMAND}" --build "${slot_build}")
  run("sdk/templates/${slot} tests" "${CMAKE_CTEST_COMMAND}" --test-dir "${slot_build}"
      --output-on-failure)
  string(APPEND plugin_path "${slot_build}:")
endforeach()
file(WRITE "${work}/templates.toml" "seed = 1
[data]
train = \"${RADIAL_DATA}\"
target = \"label\"
[basis]
plugin = \"cauchy\"
[centres]
plugin = \"farthest-point\"
count = 8
[output]
plugin = \"normal-equations\"
[weight-penalty]
plugin = \"pseudo-huber\"
alpha = 0.01
")
run("radial train with the four templates"
    "${CMAKE_COMMAND}" -E env "RADIAL_PLUGIN_PATH=${plugin_path}" "${host}" train
    "${work}/templates.toml" --quiet --model "${work}/templates.model")
require_file("${work}/templates.model" "training with the templates wrote no model")

# 5. The supervised centre learner (kernel matching pursuit) gets the pipeline's basis: the
# gaussian with its default width rule and width_scale = "choose", nothing set for the learner
# (no kernel of its own, no width setting), and the width scale the trainer chooses reaches it.
file(WRITE "${work}/supervised.toml" "seed = 1
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
run("radial train with centres matching-pursuit"
    "${CMAKE_COMMAND}" -E env "RADIAL_PLUGIN_PATH=${work}/template-supervised-centre-learner"
    "${host}" train "${work}/supervised.toml" --quiet --model "${work}/mp.model"
    --report "${work}/report.json")
file(READ "${work}/report.json" report)
string(JSON centres GET "${report}" centres count)
string(JSON curves LENGTH "${report}" selection curves)
string(JSON error GET "${report}" train error_rate)
if(NOT centres EQUAL 8)
  fail("matching-pursuit: the model has ${centres} centres, expected 8")
endif()
if(curves LESS 2)
  fail("matching-pursuit: the width scale was not chosen over several scales (${curves} curves)")
endif()
if(NOT error LESS 0.3)
  fail("matching-pursuit: training error rate ${error}: the centres do not fit the data")
endif()
message(STATUS "sdk-install: matching-pursuit: ${centres} centres, ${curves} width scales "
               "tried, training error rate ${error}: ok")

file(REMOVE_RECURSE "${work}")
message(STATUS "sdk-install: passed")
