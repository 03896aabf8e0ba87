// Tables of hand-built runs: cell means and standard deviations by hand, grid keys added to the
// columns, test.X falling back to cv.X, failed runs counted, paired comparison over seeds and
// folds, every format read back, and unknown names with "did you mean".
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "radial/core/errors.hpp"
#include "radial/io/json_depth.hpp"
#include "radial/experiment/results_table.hpp"

using nlohmann::json;
using radial::RunRecord;
using radial::Table;
using radial::TableFormat;
using radial::TableSpec;

namespace {

RunRecord run(const std::string& dataset, const std::string& pipeline, std::uint64_t seed,
              const json& report, const json& overrides = json::object()) {
  RunRecord r;
  r.key = dataset + "/" + pipeline + "/" + std::to_string(seed) + overrides.dump();
  r.experiment = "EM against DEM";
  r.dataset = dataset;
  r.pipeline = pipeline;
  r.overrides = overrides.dump();
  r.seed = seed;
  r.status = "ok";
  r.seconds = 1.5;
  r.report = report.dump();
  return r;
}

RunRecord failed(const std::string& dataset, const std::string& pipeline, std::uint64_t seed) {
  RunRecord r = run(dataset, pipeline, seed, json::object());
  r.status = "failed";
  r.message = "numerics";
  r.report.clear();
  return r;
}

// A report with a test set (as report_json writes it, cut to what the table reads).
json tested(double error_rate, double flops = 0) {
  return {{"seconds", 0.5},
          {"train", {{"error_rate", error_rate / 2}, {"mse", 0.1}}},
          {"test", {{"error_rate", error_rate}, {"mse", 0.2}}},
          {"output", {{"flops", flops}, {"iterations", 7}}},
          {"search", {{"metric", "error_rate"}, {"best", {{"centres.count", 3}}}}}};
}

// A report of k-fold CV: no "test", per-fold metrics.
json cross_validated(std::vector<double> folds) {
  json per_fold = json::array();
  double sum = 0;
  for (std::size_t k = 0; k < folds.size(); ++k) {
    per_fold.push_back({{"fold", k}, {"error_rate", folds[k]}});
    sum += folds[k];
  }
  return {{"train", {{"error_rate", 0.0}}},
          {"cv", {{"folds", folds.size()}, {"error_rate", sum / folds.size()},
                  {"per_fold", per_fold}}}};
}

// synth: a train/test pair, seeds 1-3, DEM's third run failed. iono: 2-fold CV, seeds 1-2.
std::vector<RunRecord> em_dem() {
  return {run("synth", "RBF/EM", 1, tested(0.10)),  run("synth", "RBF/EM", 2, tested(0.12)),
          run("synth", "RBF/EM", 3, tested(0.14)),  run("synth", "RBF/DEM", 1, tested(0.08)),
          run("synth", "RBF/DEM", 2, tested(0.11)), failed("synth", "RBF/DEM", 3),
          run("iono", "RBF/EM", 1, cross_validated({0.2, 0.3})),
          run("iono", "RBF/EM", 2, cross_validated({0.3, 0.4})),
          run("iono", "RBF/DEM", 1, cross_validated({0.1, 0.3})),
          run("iono", "RBF/DEM", 2, cross_validated({0.2, 0.4}))};
}

std::string input_error(const std::vector<RunRecord>& runs, const TableSpec& spec) {
  try {
    radial::make_table(runs, spec);
  } catch (const radial::InputError& e) {
    return e.what();
  }
  return "no error";
}

// A minimal CSV reader for the table's output (quoted fields, doubled quotes).
std::vector<std::vector<std::string>> read_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field), field.clear();
    } else if (c == '\n') {
      rows.back().push_back(field), field.clear();
      rows.emplace_back();
    } else {
      field += c;
    }
  }
  rows.pop_back();  // after the last newline
  return rows;
}

}  // namespace

TEST_CASE("results table: cells are mean ± sample sd over seeds, failed runs counted") {
  const Table t = radial::make_table(em_dem(), TableSpec{}, "EM against DEM");
  CHECK(t.title == "EM against DEM");
  CHECK(t.row_header == "dataset");
  CHECK(t.row_labels == std::vector<std::string>{"synth", "iono"});  // first appearance
  CHECK(t.column_labels == std::vector<std::string>{"RBF/EM", "RBF/DEM"});
  const auto& em = t.cells[0][0];
  CHECK(em.runs == 3);
  CHECK(em.failed == 0);
  CHECK(*em.mean == Approx(0.12));
  CHECK(*em.sd == Approx(0.02));  // deviations -0.02, 0, 0.02: sqrt(0.0008 / 2)
  const auto& dem = t.cells[0][1];
  CHECK(dem.runs == 3);
  CHECK(dem.failed == 1);
  CHECK(*dem.mean == Approx(0.095));
  CHECK(*dem.sd == Approx(0.021213203435596423));  // sqrt(2 * 0.015^2 / 1)
  // iono has no test set: test.error_rate is the CV error rate, the mean over its folds.
  CHECK(*t.cells[1][0].mean == Approx(0.30));
  CHECK(*t.cells[1][0].sd == Approx(0.07071067811865474));
  CHECK(*t.cells[1][1].mean == Approx(0.25));
}

TEST_CASE("results table: values by dotted path, with dotted keys and the CV fallback") {
  const RunRecord r = run("synth", "RBF/EM", 1, tested(0.1, 1.5e6));
  CHECK(*radial::run_value(r, "output.flops") == 1.5e6);
  CHECK(*radial::run_value(r, "output.iterations") == 7);
  CHECK(*radial::run_value(r, "train.mse") == 0.1);
  CHECK(*radial::run_value(r, "search.best.centres.count") == 3);  // the key "centres.count"
  CHECK(*radial::run_value(r, "seconds") == 0.5);
  CHECK_FALSE(radial::run_value(r, "cv.error_rate"));
  CHECK_FALSE(radial::run_value(r, "search.metric"));  // not a number
  CHECK(radial::run_fold_values(r, "test.error_rate") == std::vector<double>{0.1});

  const RunRecord cv = run("iono", "RBF/EM", 1, cross_validated({0.2, 0.4}));
  CHECK(*radial::run_value(cv, "test.error_rate") == Approx(0.3));
  CHECK(*radial::run_value(cv, "cv.error_rate") == Approx(0.3));
  CHECK(*radial::run_value(cv, "cv.per_fold.1.error_rate") == 0.4);
  CHECK(radial::run_fold_values(cv, "test.error_rate") == std::vector<double>{0.2, 0.4});
  CHECK(radial::run_fold_values(cv, "cv.folds") == std::vector<double>{2});
  CHECK_FALSE(radial::run_value(failed("x", "y", 1), "test.error_rate"));
  CHECK(radial::run_fold_values(failed("x", "y", 1), "test.error_rate").empty());
}

TEST_CASE("results table: grid keys with several values join the columns, sorted by value") {
  std::vector<RunRecord> runs;
  for (int alpha : {10, 5}) {
    for (std::uint64_t seed : {1, 2}) {
      runs.push_back(run("synth", "RBF/PRBF", seed, tested(0.01 * alpha + 0.01 * seed),
                         {{"kernel-prior.alpha", alpha}}));
    }
  }
  runs.push_back(run("synth", "RBF/EM", 1, tested(0.3)));  // not swept over alpha
  const Table t = radial::make_table(runs, TableSpec{});
  CHECK(t.column_labels == std::vector<std::string>{"RBF/PRBF, kernel-prior.alpha=5",
                                                    "RBF/PRBF, kernel-prior.alpha=10", "RBF/EM"});
  CHECK(*t.cells[0][0].mean == Approx(0.065));  // alpha 5: 0.06, 0.07
  CHECK(*t.cells[0][1].mean == Approx(0.115));  // alpha 10: 0.11, 0.12
  CHECK(t.cells[0][2].runs == 1);
  CHECK_FALSE(t.cells[0][2].sd);  // one run: no sample sd

  // Named as the rows, it is not added to the columns; a row label is its bare value.
  TableSpec by_alpha;
  by_alpha.rows = {"kernel-prior.alpha"};
  const Table r = radial::make_table({runs.begin(), runs.end() - 1}, by_alpha);
  CHECK(r.row_labels == std::vector<std::string>{"5", "10"});
  CHECK(r.column_labels == std::vector<std::string>{"RBF/PRBF"});

  TableSpec two;
  two.rows = {"dataset", "seed"};
  const Table s = radial::make_table({runs.begin(), runs.end() - 1}, two);
  CHECK(s.row_header == "dataset / seed");
  CHECK(s.row_labels == std::vector<std::string>{"synth, seed=1", "synth, seed=2"});
}

TEST_CASE("results table: a paired comparison over seeds and folds") {
  TableSpec spec;
  spec.compare = {"RBF/EM", "RBF/DEM"};
  const Table t = radial::make_table(em_dem(), spec);
  CHECK(t.compared == spec.compare);
  REQUIRE(t.comparisons.size() == 2);
  // synth: seeds 1 and 2 pair (DEM's seed 3 failed): -0.02, -0.01.
  const auto& synth = *t.comparisons[0];
  CHECK(synth.pairs == 2);
  CHECK(synth.mean_difference == Approx(-0.015));
  CHECK(synth.wins == 2);
  // iono: 2 seeds x 2 folds: -0.1, 0, -0.1, 0.
  const auto& iono = *t.comparisons[1];
  CHECK(iono.pairs == 4);
  CHECK(iono.mean_difference == Approx(-0.05));
  CHECK(iono.wins == 2);
  CHECK(iono.ties == 2);
  CHECK(iono.losses == 0);
  // /usr/bin/python3 -c "from scipy import stats;
  //   print(repr(stats.ttest_rel([0.1,0.3,0.2,0.4],[0.2,0.3,0.3,0.4]).pvalue),
  //   repr(stats.binomtest(0,2,0.5).pvalue))" -> 0.18169011381620923 0.5
  CHECK(*iono.t_p == Approx(0.18169011381620923).epsilon(1e-9));
  CHECK(*iono.sign_p == Approx(0.5));

  spec.compare = {"RBF/EM", "RBF/DMM"};
  const std::string message = input_error(em_dem(), spec);
  CHECK_THAT(message, Catch::Contains("'RBF/DMM'") && Catch::Contains("did you mean 'RBF/DEM'"));
}

TEST_CASE("results table: unknown dimensions and values are named with a suggestion") {
  TableSpec spec;
  spec.value = "test.eror_rate";
  CHECK_THAT(input_error(em_dem(), spec),
             Catch::Contains("'test.eror_rate'") && Catch::Contains("did you mean 'test.error_rate'"));
  spec = TableSpec{};
  spec.rows = {"datasets"};
  CHECK_THAT(input_error(em_dem(), spec),
             Catch::Contains("'datasets'") && Catch::Contains("did you mean 'dataset'"));
  spec = TableSpec{};
  spec.columns = {"pipeline", "kernel-prior.alpa"};
  std::vector<RunRecord> runs = em_dem();
  runs[0].overrides = R"({"kernel-prior.alpha": 5})";
  CHECK_THAT(input_error(runs, spec), Catch::Contains("did you mean 'kernel-prior.alpha'"));
  // A value that is null in every report is not suggested for itself (issue 25).
  runs = {run("synth", "RBF/EM", 1,
              {{"test", {{"error_rate", 0.1}, {"cross_entropy", nullptr}}}})};
  spec = TableSpec{};
  spec.value = "test.cross_entropy";
  const std::string message = input_error(runs, spec);
  CHECK_THAT(message, Catch::Contains("null in every report"));
  CHECK_THAT(message, !Catch::Contains("did you mean 'test.cross_entropy'"));
}

TEST_CASE("results table: text, markdown, csv and json") {
  TableSpec spec;
  spec.compare = {"RBF/EM", "RBF/DEM"};
  const Table t = radial::make_table(em_dem(), spec, "EM against DEM");

  const std::string text = radial::format_table(t, TableFormat::Text);
  CHECK_THAT(text, Catch::Contains("EM against DEM"));
  CHECK_THAT(text, Catch::Contains("0.120 ± 0.020"));
  CHECK_THAT(text, Catch::Contains("0.095 ± 0.021 (1 failed)"));
  // Aligned: the cells of one column end at one place.
  std::istringstream lines(text);
  std::string heading, header, synth, iono;
  std::getline(lines, heading);
  std::getline(lines, header);
  std::getline(lines, synth);
  std::getline(lines, iono);
  CHECK(header.rfind("dataset", 0) == 0);
  CHECK(synth.rfind("synth", 0) == 0);
  // Both lines are ASCII before these cells; the cell is 13 characters ("±" is one).
  CHECK(header.find("RBF/EM") + 6 == synth.find("0.120 ± 0.020") + 13);

  const std::string md = radial::format_table(t, TableFormat::Markdown);
  CHECK_THAT(md, Catch::Contains("| dataset | RBF/EM | RBF/DEM |\n| --- | ---: | ---: |\n"));
  CHECK_THAT(md, Catch::Contains("| synth | 0.120 ± 0.020 | 0.095 ± 0.021 (1 failed) |"));

  const auto csv = read_csv(radial::format_table(t, TableFormat::Csv));
  REQUIRE(csv.size() == 3);
  const std::vector<std::string> header_fields{
      "dataset", "RBF/EM mean", "RBF/EM sd", "RBF/EM runs", "RBF/EM failed", "RBF/DEM mean",
      "RBF/DEM sd", "RBF/DEM runs", "RBF/DEM failed", "pairs", "mean_difference", "wins", "ties",
      "losses", "sign_p", "t_p"};
  CHECK(csv[0] == header_fields);
  CHECK(csv[1][0] == "synth");
  CHECK(std::stod(csv[1][1]) == Approx(0.12));
  CHECK(std::stod(csv[1][2]) == Approx(0.02));
  CHECK(csv[1][8] == "1");
  CHECK(csv[2][9] == "4");
  CHECK(std::stod(csv[2][15]) == Approx(0.18169011381620923));

  const json j = json::parse(radial::format_table(t, TableFormat::Json));
  CHECK(j["title"] == "EM against DEM");
  CHECK(j["value"] == "test.error_rate");
  CHECK(j["rows"] == json({"synth", "iono"}));
  CHECK(j["columns"] == json({"RBF/EM", "RBF/DEM"}));
  CHECK(j["cells"][0][1]["failed"] == 1);
  CHECK(j["cells"][0][1]["mean"].get<double>() == Approx(0.095));
  CHECK(j["compare"]["b"] == "RBF/DEM");
  CHECK(j["compare"]["rows"][1]["ties"] == 2);

  // A cell of failed runs only, and labels that need quoting in CSV.
  std::vector<RunRecord> runs{failed("a, \"b\"", "P|Q", 1), failed("a, \"b\"", "P|Q", 2)};
  runs.push_back(run("c", "P|Q", 1, tested(0.5)));
  const Table f = radial::make_table(runs, TableSpec{});
  CHECK_THAT(radial::format_table(f, TableFormat::Text), Catch::Contains("failed"));
  CHECK(f.cells[0][0].failed == 2);
  CHECK_FALSE(f.cells[0][0].mean);
  const auto fcsv = read_csv(radial::format_table(f, TableFormat::Csv));
  CHECK(fcsv[1][0] == "a, \"b\"");
  CHECK(fcsv[1][1].empty());
  CHECK_THAT(radial::format_table(f, TableFormat::Markdown), Catch::Contains("P\\|Q"));
}

TEST_CASE("results table: runs as JSON carry the report's metric objects") {
  std::vector<RunRecord> runs = em_dem();
  runs[0].overrides = R"({"kernel-prior.alpha": 5})";
  const json j = json::parse(radial::runs_json(runs));
  REQUIRE(j["runs"].size() == runs.size());
  const json& first = j["runs"][0];
  CHECK(first["dataset"] == "synth");
  CHECK(first["pipeline"] == "RBF/EM");
  CHECK(first["seed"] == 1);
  CHECK(first["overrides"] == json({{"kernel-prior.alpha", 5}}));
  CHECK(first["status"] == "ok");
  CHECK(first["seconds"] == 1.5);
  CHECK(first["test"]["error_rate"] == 0.10);
  CHECK(first["train"]["mse"] == 0.1);
  CHECK(first["cv"].is_null());
  CHECK(first["search"]["best"]["centres.count"] == 3);
  const json& fail = j["runs"][5];
  CHECK(fail["status"] == "failed");
  CHECK(fail["message"] == "numerics");
  CHECK(fail["train"].is_null());
  CHECK(j["runs"][6]["cv"]["per_fold"].size() == 2);
  CHECK(j["runs"][6]["test"].is_null());
}

TEST_CASE("results table: a stored report nested 50,000 levels deep is not a report") {
  // Issue 25, defect 1: such a value made `radial results` and `radial plot results` die by
  // SIGSEGV after 1.9 GB. It now reads as a run without values, in every reader.
  RunRecord deep = run("synth", "RBF/EM", 1, tested(0.1));
  std::string nested;
  for (int i = 0; i < 50000; ++i) nested += "{\"a\":";
  nested += "1";
  nested += std::string(50000, '}');
  deep.report = "{\"train\":" + nested + "}";
  deep.overrides = std::string(50000, '[') + std::string(50000, ']');
  CHECK_FALSE(radial::run_value(deep, "train.mse"));
  const std::string text = radial::runs_json({deep, run("synth", "RBF/EM", 2, tested(0.2))});
  const json back = json::parse(text);
  CHECK(back.at("runs").at(0).at("train").is_null());
  CHECK(back.at("runs").at(0).at("overrides").is_string());  // kept as stored, not parsed
  CHECK(back.at("runs").at(1).at("test").at("error_rate") == 0.2);
  CHECK_THROWS_AS(radial::make_table({deep}, TableSpec{}, "deep"), radial::InputError);
}

TEST_CASE("json_depth counts arrays and objects outside strings, and stops early") {
  CHECK(radial::json_depth("{}") == 1);
  CHECK(radial::json_depth("{\"a\": [1, {\"b\": []}], \"c\": {}}") == 4);
  CHECK(radial::json_depth("\"[[[{{{\"") == 0);              // inside a string
  CHECK(radial::json_depth("[\"\\\"[[\", [[]]]") == 3);       // an escaped quote
  CHECK(radial::json_depth(std::string(300, '['), 10) == 11);  // stopped past the limit
  CHECK_FALSE(radial::json_depth_ok(std::string(257, '[') + std::string(257, ']')));
  CHECK(radial::json_depth_ok(std::string(256, '[') + std::string(256, ']')));
}
