// fixed: centres from a CSV file, loaded as the host loads it; NETLAB's centres give NETLAB's
// pinv optimum; every malformed file is refused with file:line:column.
#include <catch2/catch.hpp>

#include <fstream>

#include <unistd.h>

#include <radial/network/design_matrix.hpp>
#include <radial/core/errors.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>
#include <radial/data/data_reader.hpp>
#include <radial/testing/paths.hpp>
#include <radial/testing/registry.hpp>

namespace {

const radial::Registry& registry() {
  return radial::testing::plugin_registry(
      {"centres-fixed", "basis-gaussian", "output-least-squares"});
}

radial::Params params_for(radial::Slot slot, const std::string& id,
                          std::map<std::string, radial::ParamValue> given = {}) {
  return radial::validate_params(registry().require(slot, id).params, given, "plugin " + id);
}

std::shared_ptr<radial::CentreLearner> fixed(const std::filesystem::path& file) {
  return registry().make_centre_learner(
      "fixed", params_for(radial::Slot::Centres, "fixed", {{"file", file.string()}}));
}

radial::Dataset two_features(std::size_t features = 2) {
  radial::Dataset data;
  data.inputs = xt::zeros<double>({std::size_t(5), features});
  data.task = radial::Task::Regression;
  data.values = xt::zeros<double>({std::size_t(5)});
  return data;
}

// A file in a fresh temporary folder, removed with the object.
struct TempFile {
  std::filesystem::path path;
  explicit TempFile(const std::string& text, const std::string& name = "centres.csv") {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("radial-fixed-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    path = dir / name;
    std::ofstream(path) << text;
  }
  ~TempFile() { std::filesystem::remove(path); }
};

std::string error_of(const std::string& text, std::size_t features = 2) {
  TempFile file(text);
  radial::FitContext ctx(1);
  try {
    fixed(file.path)->fit(two_features(features), nullptr, ctx);
  } catch (const radial::InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("fixed reads centres and spherical variances", "[fixed]") {
  const auto file =
      radial::testing::source_dir() / "plugins/centres-fixed/tests/data/netlab_gauss_centres.csv";
  radial::FitContext ctx(1);
  const auto centres = fixed(file)->fit(two_features(), nullptr, ctx);
  centres.check();
  REQUIRE(centres.count() == 10);
  REQUIRE(centres.dim() == 2);
  CHECK(centres.shape == radial::Shape::Spherical);
  // First and last rows of NETLAB's centres.csv / widths.csv.
  CHECK(centres.means(0, 0) == -0.27333262700841632);
  CHECK(centres.means(0, 1) == 0.030808502026278092);
  CHECK(centres.means(9, 0) == 0.7578175273398895);
  CHECK(centres.means(9, 1) == -0.96230211271557908);
  CHECK(centres.variances(0) == 2.0317089402999815);
  CHECK(centres.variances(9) == 2.0317089402999815);
  CHECK(ctx.report.figures.at("centres") == 10.0);
}

TEST_CASE("fixed: the variance column may be anywhere, and is optional", "[fixed]") {
  {
    TempFile file("variance, a , b\r\n0.5, 1, 2\r\n\r\n2, +3, -4e-1\r\n");
    radial::FitContext ctx(1);
    const auto c = fixed(file.path)->fit(two_features(), nullptr, ctx);
    REQUIRE(c.count() == 2);
    CHECK(c.means(0, 0) == 1.0);
    CHECK(c.means(0, 1) == 2.0);
    CHECK(c.means(1, 0) == 3.0);
    CHECK(c.means(1, 1) == -0.4);
    CHECK(c.variances(0) == 0.5);
    CHECK(c.variances(1) == 2.0);
  }
  {
    TempFile file("x\n1\n2\n3\n");
    radial::FitContext ctx(1);
    const auto c = fixed(file.path)->fit(two_features(1), nullptr, ctx);
    CHECK(c.count() == 3);
    CHECK(c.shape == radial::Shape::None);
    CHECK(c.variances.size() == 0);
  }
}

TEST_CASE("fixed refuses malformed files with file:line:column", "[fixed]") {
  const std::string name = "centres.csv:";
  CHECK_THAT(error_of("x1,x2,x3\n1,2,3\n"),
             Catch::Contains(name + "1:1:") && Catch::Contains("3 feature columns") &&
                 Catch::Contains("the data have 2 features"));
  CHECK_THAT(error_of("x1,variance\n1,2\n"),
             Catch::Contains("1 feature column (besides 'variance')"));
  CHECK_THAT(error_of("x1,x2\n1,2\n3,abc\n"),
             Catch::Contains(name + "3:3:") && Catch::Contains("'abc' in column 'x2'"));
  CHECK_THAT(error_of("x1,x2\n1,2\n3\n"),
             Catch::Contains(name + "3:1:") && Catch::Contains("1 fields but the header has 2"));
  CHECK_THAT(error_of("x1,x2,variance\n1,2,0\n"),
             Catch::Contains(name + "2:5:") && Catch::Contains("variance 0 must be > 0"));
  CHECK_THAT(error_of("x1,x2\n1,nan\n"), Catch::Contains(name + "2:3:"));
  CHECK_THAT(error_of("x1,x2\n1,\n"), Catch::Contains(name + "2:3:"));
  CHECK_THAT(error_of("x1,x2\n"), Catch::Contains(name + "2:1:") && Catch::Contains("no centres"));
  CHECK_THAT(error_of(""), Catch::Contains(name + "1:1:") && Catch::Contains("empty"));
  CHECK_THAT(error_of("0.5,1.5\n1,2\n"), Catch::Contains("header row"));
  CHECK_THAT(error_of("variance,x1,variance\n1,2,3\n", 1),
             Catch::Contains(name + "1:13:") && Catch::Contains("second 'variance'"));

  radial::FitContext ctx(1);
  CHECK_THROWS_WITH(fixed("/nonexistent/centres.csv")->fit(two_features(), nullptr, ctx),
                    Catch::Contains("no such centres file") && Catch::Contains("centres.file"));
  // A directory is named as one, not read as an empty centres file.
  CHECK_THROWS_WITH(fixed(std::filesystem::temp_directory_path())->fit(two_features(), nullptr, ctx),
                    Catch::Contains("is a directory, not a centres file") &&
                        Catch::Contains("centres.file"));
  CHECK_THROWS_AS(params_for(radial::Slot::Centres, "fixed"), radial::ParameterError);  // required
}

TEST_CASE("fixed NETLAB centres with the gaussian basis reach NETLAB's pinv optimum",
          "[fixed][netlab]") {
  const auto data = radial::read_csv(radial::testing::source_dir() /
                                     "docs/examples/data/synth3_train.csv");
  radial::FitContext ctx(1);
  auto centres = fixed(radial::testing::source_dir() /
                       "plugins/centres-fixed/tests/data/netlab_gauss_centres.csv")
                     ->fit(data, nullptr, ctx);
  const auto basis =
      registry().make_basis("gaussian", params_for(radial::Slot::Basis, "gaussian"));
  basis->prepare(centres, ctx);
  const radial::DesignMatrix design(data.inputs, centres, *basis);
  const auto layer = registry().make_output_layer(
      "least-squares", params_for(radial::Slot::Output, "least-squares"));
  radial::FitContext out_ctx(1);
  layer->fit(radial::TrainingProblem{design, data, centres, *basis}, nullptr, out_ctx);
  // NETLAB results.csv, pinv: 12.398455024396405 for one 0/1 column; twice that for 1-of-2.
  CHECK(out_ctx.report.final_error == Approx(2 * 12.398455024396405).epsilon(1e-9));
}

TEST_CASE("fixed passes the plugin conformance kit", "[fixed][conformance]") {
  radial::Registry fresh;
  fresh.load_file(radial::testing::plugin_dir() / "libradial-centres-fixed.so");
  radial::conformance::Options options;
  options.params["file"] =
      (radial::testing::source_dir() / "plugins/centres-fixed/tests/data/netlab_gauss_centres.csv")
          .string();
  radial::conformance::check_plugin(fresh, "fixed", options);
}
