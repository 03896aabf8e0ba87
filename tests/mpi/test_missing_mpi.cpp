// Data as researchers have it (issue 28) under mpirun: [data] missing = "drop-rows", "mean",
// "median" and "em", and nominal inputs, trained on this rank's shard of a file inside
// ShardedScope(world()) against one process on the same file (outside any scope, on every
// rank). The missing counts, dropped rows, imputation values and nominal categories must be
// exactly one process's; the fitted model (standardiser, centres, widths, mixing weights,
// output weights) and its predictions the same to 1e-9 relative (to the array's scale).
// The data: docs/examples/data/waveform.csv (5000 rows, 21 inputs: five blocks of 1024 rows, so
// every rank holds rows), with cells removed deterministically and, for the nominal case, two
// category columns whose categories differ between the first and last rows (the union over
// ranks is needed), written by rank 0 to a temporary folder.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "radial/data/missing_values.hpp"
#include "radial/distributed/collectives.hpp"
#include "radial/model/model.hpp"
#include "radial/model/network.hpp"
#include "radial/core/params.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/paths.hpp"
#include "radial/testing/registry.hpp"
#include "radial/training/trainer.hpp"

using namespace radial;

namespace {

constexpr double kRelative = 1e-9;
// In the repository: a file outside it (as /work/shared/data/waveform.csv was) is missing on a
// fresh machine, where rank 0's REQUIRE then left the other ranks waiting until the timeout.
const std::filesystem::path kSource =
    radial::testing::source_dir() / "docs" / "examples" / "data" / "waveform.csv";

const Registry& plugins() { return testing::shipped_registry(); }

// A folder made by rank 0, known to every rank; removed at exit by rank 0.
struct SharedFolder {
  std::filesystem::path path;
  SharedFolder() {
    std::string name;
    if (world().rank() == 0) {
      std::string pattern =
          (std::filesystem::temp_directory_path() / "radial-missing-mpi.XXXXXX").string();
      if (::mkdtemp(pattern.data()) != nullptr) name = pattern;
    }
    world().broadcast(name, 0);
    path = name;
  }
  // At exit, after every rank's last collective (each test ends with one, after its reads).
  ~SharedFolder() {
    std::error_code ignored;
    if (world().rank() == 0 && !path.empty()) std::filesystem::remove_all(path, ignored);
  }
};

const std::filesystem::path& folder() {
  static SharedFolder f;
  return f.path;
}

// Whether cell (row i, input j) is removed, and the marker written for it.
// Every third row is complete (drop-rows keeps those).
bool removed(std::size_t i, std::size_t j) { return i % 3 != 0 && (i * 13 + j * 7) % 17 == 0; }
const char* marker(std::size_t i, std::size_t j) {
  static const char* const markers[] = {"?", "", "NA"};
  return markers[(i + j) % 3];
}

// Writes `name` in folder(): the waveform rows with cells removed; with `nominal`, two columns
// of categories first: 'shade' (text from the first row: found nominal by its first cell) and
// 'grade' (numbers, named in data.nominal), whose categories differ between the first and the
// last rows, with a missing cell now and then.
std::filesystem::path write_data(const std::string& name, bool nominal) {
  const std::filesystem::path file = folder() / name;
  if (world().rank() == 0) {
    std::ifstream in(kSource);
    REQUIRE(in);
    std::ofstream out(file);
    std::string line;
    std::getline(in, line);
    out << (nominal ? "shade,grade," : "") << line << "\n";
    for (std::size_t i = 0; std::getline(in, line); ++i) {
      std::vector<std::string> cells;
      std::stringstream split(line);
      for (std::string cell; std::getline(split, cell, ',');) cells.push_back(cell);
      if (nominal) {
        static const char* const early[] = {"red", "blue"};
        static const char* const late[] = {"green", "amber", "blue", "red"};
        static const char* const grades[] = {"1", "2", "10", "3"};
        out << (i % 37 == 5 ? "?" : i < 2500 ? early[i % 2] : late[i % 4]) << ","
            << (i % 41 == 7 ? "" : i >= 4000 && i % 5 == 0 ? "25" : grades[(i / 7) % 4]) << ",";
      }
      for (std::size_t j = 0; j < cells.size(); ++j) {
        if (j != 0) out << ",";
        out << (j + 1 < cells.size() && removed(i, j) ? marker(i, j) : cells[j]);
      }
      out << "\n";
    }
    REQUIRE(out.good());
  }
  double done = 1;
  world().sum(&done, 1);  // the file is complete before any rank reads it
  return file;
}

// The rows of write_data(name, true) as Weka ARFF (`@attribute ... {...}` for the two category
// columns, "?" for every missing cell) with the class as a nominal attribute of text labels, so
// the ARFF reader's shards (its header on every rank, a byte range of @data each) must agree
// with one process on nominal inputs, missing cells and text classes together.
std::filesystem::path write_arff(const std::string& name, const std::filesystem::path& csv) {
  const std::filesystem::path file = folder() / name;
  if (world().rank() == 0) {
    std::ifstream in(csv);
    REQUIRE(in);
    std::ofstream out(file);
    std::string line;
    std::getline(in, line);
    std::vector<std::string> names;
    std::stringstream header(line);
    for (std::string cell; std::getline(header, cell, ',');) names.push_back(cell);
    out << "% the waveform rows of test_missing_mpi, with categories and missing cells\n"
        << "@relation 'waveform with gaps'\n\n"
        << "@attribute shade {red, blue, green, amber}\n@attribute grade {1, 2, 3, 10, 25}\n";
    for (std::size_t j = 2; j + 1 < names.size(); ++j)
      out << "@attribute " << names[j] << " numeric\n";
    out << "@attribute class {'wave 0', 'wave 1', 'wave 2'}\n\n@data\n";
    while (std::getline(in, line)) {
      std::vector<std::string> cells;
      std::stringstream split(line);
      for (std::string cell; std::getline(split, cell, ',');) cells.push_back(cell);
      if (line.back() == ',') cells.emplace_back();
      for (std::size_t j = 0; j < cells.size(); ++j) {
        const std::string& c = cells[j];
        out << (j ? "," : "")
            << (j + 1 == cells.size() ? "'wave " + c + "'" : c.empty() || c == "NA" ? "?" : c);
      }
      out << "\n";
    }
    REQUIRE(out.good());
  }
  double done = 1;
  world().sum(&done, 1);
  return file;
}

std::string pipeline_text(const std::string& data, const std::string& missing,
                          const std::string& extra_data, const std::string& centres,
                          const std::string& basis, const std::string& output) {
  return "name = \"missing under mpirun\"\nseed = 5\nthreads = 1\n[data]\ntrain = \"" + data +
         "\"\nstandardize = true\nmissing = \"" + missing + "\"\n" + extra_data +
         "\n[basis]\n" + basis + "\n[centres]\n" + centres + "\n[output]\n" + output + "\n";
}

// |a - b| <= kRelative * max|a| elementwise (over the finite values; equal values, infinities
// included, agree), equal sizes.
template <class A>
void check_close(const A& a, const A& b, const std::string& what) {
  INFO(what);
  REQUIRE(a.size() == b.size());
  double scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::isfinite(double(a.data()[i])))
      scale = std::max(scale, std::fabs(double(a.data()[i])));
  std::size_t bad = 0;
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (double(a.data()[i]) == double(b.data()[i])) continue;
    const double e = std::fabs(double(a.data()[i]) - double(b.data()[i]));
    if (!(e <= kRelative * scale)) ++bad;
    worst = std::max(worst, e);
  }
  INFO("largest difference " << worst << " at scale " << scale);
  CHECK(bad == 0);
}

// Bit equality (NaN equals the same NaN).
template <class A>
void check_same(const A& a, const A& b, const std::string& what) {
  INFO(what);
  REQUIRE(a.size() == b.size());
  if (a.size() == 0) return;  // an empty array's data() may be null, which memcmp may not take
  CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(*a.data())) == 0);
}

// The model's predictions on the inputs one process reads from the pipeline's file, prepared
// as the trainer prepares them (rows with a missing cell left out for drop-rows, imputed).
Matrix predictions(const Model& model, const Matrix& raw) {
  const ComponentInfo* info = plugins().find(Slot::Basis, model.basis_id);
  REQUIRE(info);
  auto basis =
      plugins().make_basis(model.basis_id,
                           validate_params(info->params, model.basis_params, "basis"));
  basis->load_state(model.basis_state);
  const Network net(model, std::move(basis));
  Matrix x = raw;
  if (model.imputation.size() != 0) impute(x, model.imputation);
  return net.predict(x);
}

// One process and this rank's shard: the same report, imputation, coding and model.
void check_against_one_process(const std::string& text, const std::filesystem::path& file) {
  const Pipeline p = parse_pipeline(text, file.parent_path() / "p.toml", plugins());
  const TrainingResult one = train(p, plugins());
  TrainingData raw = read_training_data(p);  // all rows, as one process reads them
  TrainingResult sharded;
  {
    ShardedScope scope(world());
    sharded = train(p, plugins());
  }
  INFO(world().size() << " ranks, missing = " << one.report.missing_policy);
  // Counts and rows: exactly one process's.
  CHECK(sharded.report.missing == one.report.missing);
  CHECK(sharded.report.dropped_rows == one.report.dropped_rows);
  CHECK(sharded.report.train_rows == one.report.train_rows);
  std::size_t cells = 0;
  for (const auto& [column, count] : one.report.missing) cells += count;
  CHECK(cells > 0);
  // Imputation and coding: exactly.
  check_same(one.model.imputation, sharded.model.imputation, "imputation");
  CHECK(one.model.input_coding.raw_names == sharded.model.input_coding.raw_names);
  REQUIRE(one.model.input_coding.nominal.size() == sharded.model.input_coding.nominal.size());
  for (std::size_t k = 0; k < one.model.input_coding.nominal.size(); ++k) {
    CHECK(one.model.input_coding.nominal[k].column == sharded.model.input_coding.nominal[k].column);
    CHECK(one.model.input_coding.nominal[k].categories ==
          sharded.model.input_coding.nominal[k].categories);
  }
  CHECK(one.model.feature_names == sharded.model.feature_names);
  CHECK(one.model.missing_em == sharded.model.missing_em);
  // The fitted model.
  check_close(one.model.standardiser.mean, sharded.model.standardiser.mean, "standardiser mean");
  check_close(one.model.standardiser.scale, sharded.model.standardiser.scale, "standardiser scale");
  // nominal_scale = "input" (the default): one scale per nominal input, sqrt(1 - sum p_k^2)
  // of the category frequencies p_k (the indicators' means) over every rank's rows.
  const InputCoding& coding = sharded.model.input_coding;
  std::size_t column = 0;
  for (std::size_t c = 0; sharded.model.standardize && c < coding.raw_names.size(); ++c) {
    const NominalInput* nominal = coding.find(c);
    if (nominal == nullptr) {
      ++column;
      continue;
    }
    double same = 0.0;
    for (std::size_t k = 0; k < nominal->categories.size(); ++k)
      same += sharded.model.standardiser.mean(column + k) * sharded.model.standardiser.mean(column + k);
    for (std::size_t k = 0; k < nominal->categories.size(); ++k)
      CHECK(sharded.model.standardiser.scale(column + k) == Approx(std::sqrt(1 - same)).epsilon(1e-14));
    column += nominal->categories.size();
  }
  const Centres &a = one.model.centres, &b = sharded.model.centres;
  check_close(a.means, b.means, "centres");
  check_close(a.variances, b.variances, "spherical widths");
  check_close(a.diagonal, b.diagonal, "diagonal widths");
  check_close(a.covariances, b.covariances, "covariances");
  check_close(a.mixing, b.mixing, "mixing weights");
  check_close(a.class_priors, b.class_priors, "class priors");
  check_close(one.model.weights, sharded.model.weights, "output weights");
  // The input model of an activation network under em (none otherwise).
  check_close(one.model.input_model.means, sharded.model.input_model.means, "input model means");
  check_close(one.model.input_model.covariances, sharded.model.input_model.covariances,
              "input model covariance");
  // Predictions of both models on one process's rows.
  Dataset& rows = raw.train;
  if (one.report.dropped_rows != 0) drop_missing_rows(rows);
  check_close(predictions(one.model, rows.inputs), predictions(sharded.model, rows.inputs),
              "predictions");
  // Every rank holds the same model.
  std::string mine;
  mine.append(reinterpret_cast<const char*>(sharded.model.weights.data()),
              sharded.model.weights.size() * sizeof(double));
  const std::vector<std::string> every = world().all_gather(mine);
  for (std::size_t q = 0; q < every.size(); ++q) {
    INFO("rank " << q << " against rank 0");
    CHECK(every[q] == every[0]);
  }
}

// This rank's shard of the pipeline's training rows, as read under mpirun.
Dataset sharded_rows(const std::string& text, const std::filesystem::path& file) {
  const Pipeline p = parse_pipeline(text, file.parent_path() / "p.toml", plugins());
  ShardedScope scope(world());
  return read_training_data(p).train;
}

// The two category columns of write_data(name, true): in increasing byte order, from every
// part of the file (the first rows hold none of 'green', 'amber' or '25').
void check_categories(const Dataset& mine) {
  REQUIRE(mine.coding.nominal.size() == 2);
  CHECK(mine.coding.nominal[0].categories ==
        std::vector<std::string>{"amber", "blue", "green", "red"});
  CHECK(mine.coding.nominal[1].categories == std::vector<std::string>{"1", "10", "2", "25", "3"});
}

const std::string kKmeans = "plugin = \"kmeans\"\ncount = 6";
const std::string kGaussian = "plugin = \"gaussian\"\nwidth = 1.0";
const std::string kLeastSquares = "plugin = \"least-squares\"";

}  // namespace

TEST_CASE("missing = mean, median and drop-rows under mpirun fit one process's values",
          "[mpi][missing]") {
  const auto file = write_data("cells.csv", false);
  for (const std::string missing : {"mean", "median", "drop-rows"}) {
    SECTION(missing) {
      check_against_one_process(
          pipeline_text(file.filename().string(), missing, "", kKmeans, kGaussian, kLeastSquares),
          file);
    }
  }
}

TEST_CASE("nominal inputs under mpirun: the categories are the union over ranks",
          "[mpi][nominal]") {
  const auto file = write_data("nominal.csv", true);
  check_against_one_process(pipeline_text(file.filename().string(), "mean",
                                          "nominal = [\"grade\"]", kKmeans, kGaussian,
                                          kLeastSquares),
                            file);
  // The categories as written: in increasing byte order, from every part of the file.
  check_categories(sharded_rows(pipeline_text(file.filename().string(), "median",
                                              "nominal = [\"grade\"]", kKmeans, kGaussian,
                                              kLeastSquares),
                                file));
}

TEST_CASE("missing = em under mpirun: the mixture over the observed coordinates", "[mpi][em]") {
  const auto file = write_data("cells-em.csv", false);
  check_against_one_process(
      pipeline_text(file.filename().string(), "em", "",
                    "plugin = \"gmm\"\nmode = \"per-class\"\ncount = 2\ncovariance = "
                    "\"diagonal\"\niterations = 15",
                    "plugin = \"gaussian\"\ndensity = true", "plugin = \"bayes\""),
      file);
  check_against_one_process(
      pipeline_text(file.filename().string(), "em", "",
                    "plugin = \"gmm\"\nmode = \"pooled\"\ncount = 4\ncovariance = "
                    "\"full\"\niterations = 10",
                    "plugin = \"gaussian\"", "plugin = \"least-squares\""),
      file);
}

TEST_CASE("ARFF under mpirun: nominal attributes, missing cells and text classes",
          "[mpi][nominal][arff]") {
  const auto file = write_arff("nominal.arff", write_data("nominal-for-arff.csv", true));
  for (const std::string missing : {"mean", "em"}) {
    SECTION(missing) {
      check_against_one_process(
          pipeline_text(file.filename().string(), missing, "",
                        missing == "em" ? "plugin = \"gmm\"\nmode = \"per-class\"\ncount = 2\n"
                                          "covariance = \"diagonal\"\niterations = 10"
                                        : kKmeans,
                        missing == "em" ? "plugin = \"gaussian\"\ndensity = true" : kGaussian,
                        missing == "em" ? "plugin = \"bayes\"" : kLeastSquares),
          file);
    }
  }
  // The categories from every part of the file, and the class names from the header.
  const Dataset mine = sharded_rows(
      pipeline_text(file.filename().string(), "mean", "", kKmeans, kGaussian, kLeastSquares),
      file);
  check_categories(mine);
  CHECK(mine.class_names == std::vector<std::string>{"wave 0", "wave 1", "wave 2"});
}
