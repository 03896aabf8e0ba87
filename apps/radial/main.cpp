// radial: train, evaluate and apply RBF networks assembled from plugins by a pipeline file.
// Results go to stdout or files, logs to stderr. Exit codes: 0 success, 2 bad input or usage
// (an output refused before any work included), 1 results that could not be written or an
// internal failure; a reader of stdout that leaves early ends the run quietly, by SIGPIPE.
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "distributed.hpp"
#include "plot/plot_command.hpp"
#include "radial/distributed/collectives.hpp"
#include "radial/errors.hpp"
#include "radial/io/output_file.hpp"
#include "radial/version.hpp"

namespace {

constexpr int exit_bad_input = 2;
constexpr int exit_internal = 1;
constexpr int exit_not_written = 1;
constexpr int exit_broken_pipe = 128 + 13;  // as if killed by SIGPIPE

// --seed as the pipeline's seed: an integer from 0 to 2^63 - 1 (CLI11 would wrap -1).
std::uint64_t parse_seed(const std::string& text) {
  const std::string range = "--seed takes an integer from 0 to 9223372036854775807";
  std::uint64_t value = 0;
  if (text.empty() || text.size() > 19) throw radial::InputError("--seed " + text + ": " + range);
  for (char ch : text) {
    if (ch < '0' || ch > '9') throw radial::InputError("--seed " + text + ": " + range);
    value = value * 10 + std::uint64_t(ch - '0');
  }
  if (value > std::uint64_t(INT64_MAX)) throw radial::InputError("--seed " + text + ": " + range);
  return value;
}

// A closed stdin, stdout or stderr (`radial ... >&-`) would be taken by the next file opened,
// and results written into it. Hold each closed one with /dev/null opened read-only: reads end
// at once, writes still fail with EBADF, so the failure is reported, not hidden.
void hold_closed_standard_streams() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int held = ::open("/dev/null", O_RDONLY);
    if (held >= 0 && held != fd) {
      ::dup2(held, fd);
      ::close(held);
    }
  }
}

// Training allocates and frees the same large blocks again and again (the design matrix of each
// width candidate, per-block scratch). glibc would return each to the system and fault its
// pages in again, 10-20% of a default fit's time: keep freed memory for reuse instead. Peak
// memory is unchanged (the blocks are reused, not added); the process ends soon after.
void keep_freed_memory() {
  ::mallopt(M_MMAP_THRESHOLD, 1 << 30);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

}  // namespace

int main(int argc, char** argv) {
  hold_closed_standard_streams();
  keep_freed_memory();
  CLI::App app{"radial — train radial basis function networks from pipeline files"};
  app.set_version_flag("--version", std::string("radial ") + radial::version);
  app.require_subcommand(1);

  radial::cli::TrainArgs train;
  std::string seed;
  int threads = 0;
  auto* train_cmd = app.add_subcommand("train", "train a network from a pipeline file");
  train_cmd->add_option("pipeline", train.pipeline, "pipeline file (TOML)")->required();
  train_cmd->add_option("--set", train.overrides, "override a pipeline value: slot.key=value")
      ->allow_extra_args(false);
  train_cmd->add_option("--model", train.model, "write the trained model to this file");
  train_cmd->add_option("--report", train.report, "write the JSON report to this file (default: stdout)");
  auto* seed_opt = train_cmd->add_option("--seed", seed, "random seed, 0 to 2^63-1 (overrides the pipeline's)");
  auto* threads_opt = train_cmd->add_option("--threads", threads, "threads (0: all cores)")
                          ->check(CLI::NonNegativeNumber);
  train_cmd->add_flag("--quiet,-q", train.quiet, "no progress lines on stderr");
  train_cmd->add_option("--plots", train.plots,
                        "write the run's learning curve (and decision regions) as SVG into this folder");
  train_cmd->add_flag("--json", train.json, "the JSON report on stdout even when it is a terminal");

  std::string validate_file;
  std::vector<std::string> validate_overrides;
  auto* validate_cmd = app.add_subcommand("validate", "check a pipeline file without training");
  validate_cmd->add_option("pipeline", validate_file, "pipeline file (TOML)")->required();
  validate_cmd->add_option("--set", validate_overrides, "override a pipeline value: slot.key=value");

  radial::cli::PredictArgs predict;
  auto* predict_cmd = app.add_subcommand("predict", "apply a model to a CSV file");
  predict_cmd->add_option("model", predict.model, "model file")->required();
  predict_cmd->add_option("data", predict.data, "CSV file with the model's feature columns")->required();
  predict_cmd->add_flag("--probabilities", predict.probabilities, "also write class probabilities");
  predict_cmd->add_option("--output", predict.output, "write the CSV here (default: stdout)");

  radial::cli::EvaluateArgs evaluate;
  auto* evaluate_cmd = app.add_subcommand("evaluate", "metrics of a model on a labelled CSV file");
  evaluate_cmd->add_option("model", evaluate.model, "model file")->required();
  evaluate_cmd->add_option("data", evaluate.data, "CSV file with features and target")->required();
  evaluate_cmd->add_option("--report", evaluate.report, "write the JSON here (default: stdout)");

  radial::cli::ExperimentArgs experiment;
  const std::vector<std::string> formats{"text", "markdown", "csv", "json"};
  auto* experiment_cmd = app.add_subcommand(
      "experiment", "run an experiment file (datasets x pipelines x grid x seeds), print its table");
  experiment_cmd->add_option("file", experiment.file, "experiment file (TOML)")->required();
  experiment_cmd->add_option("--results", experiment.results,
                             "results database (default: <file stem>.results.sqlite beside the file)");
  experiment_cmd->add_option("--jobs,-j", experiment.jobs, "runs at once (0: all cores)")
      ->check(CLI::NonNegativeNumber);
  experiment_cmd->add_option("--format", experiment.format, "text, markdown, csv or json (every run)")
      ->check(CLI::IsMember(formats));
  experiment_cmd->add_flag("--quiet,-q", experiment.quiet, "no progress on stderr");
  experiment_cmd->add_flag("--retry-failed", experiment.retry_failed,
                           "run again the runs stored as failed (else they count as done)");

  radial::cli::ResultsArgs results;
  auto* results_cmd = app.add_subcommand("results", "print tables from a results database");
  results_cmd->add_option("database", results.database, "results database (.sqlite)")->required();
  results_cmd->add_option("--format", results.format, "text, markdown, csv or json (every run)")
      ->check(CLI::IsMember(formats));
  results_cmd->add_option("--table", results.table,
                          "change the experiment's [table]: rows=DIM[+DIM],columns=DIM[+DIM],value=PATH,compare=A+B");

  radial::cli::PlotArgs plot;
  auto* plot_cmd = app.add_subcommand(
      "plot", "draw a report, model or results database with gnuplot (docs/plotting.md)");
  plot_cmd->add_option("kind", plot.kind, "learning-curve, series, selection, decision-regions or results")->required();
  plot_cmd->add_option("inputs", plot.inputs, "REPORT... | REPORT | MODEL DATA | DB")->required();
  plot_cmd->add_option("--output,-o", plot.output, "image file: .svg, .png or .pdf")->required();
  plot_cmd->add_option("--title", plot.title, "title (default: the kind's own)");
  plot_cmd->add_option("--width", plot.width, "width in pixels (PDF: 100 per inch)");
  plot_cmd->add_option("--height", plot.height, "height in pixels (PDF: 100 per inch)");
  plot_cmd->add_option("--stage", plot.stage, "centres or output (learning-curve, series)");
  plot_cmd->add_option("--x", plot.x, "iteration, flops or seconds (learning-curve)");
  plot_cmd->add_flag("--logx", plot.logx, "logarithmic x axis");
  plot_cmd->add_flag("--logy", plot.logy, "logarithmic y axis");
  plot_cmd->add_option("--label", plot.labels, "a legend label per report, in order")->allow_extra_args(false);
  plot_cmd->add_option("--names", plot.names, "series to draw, comma-separated (series)")->delimiter(',');
  plot_cmd->add_flag("--probabilities", plot.probabilities, "shade regions by the posterior");
  plot_cmd->add_option("--xrange", plot.xrange, "LO:HI of the first input (decision-regions)");
  plot_cmd->add_option("--yrange", plot.yrange, "LO:HI of the second input (decision-regions)");
  plot_cmd->add_option("--rows", plot.rows, "table rows: DIM[+DIM] (results)");
  plot_cmd->add_option("--columns", plot.columns, "table columns: DIM[+DIM] (results)");
  plot_cmd->add_option("--value", plot.value, "report value, e.g. test.error_rate (results)");

  std::string inspect_file;
  auto* inspect_cmd = app.add_subcommand("inspect", "show what a model file holds");
  inspect_cmd->add_option("model", inspect_file, "model file")->required();

  std::string show_id;
  auto* plugins_cmd = app.add_subcommand("plugins", "list plugins, or show one with its parameters");
  auto* list_cmd = plugins_cmd->add_subcommand("list", "every plugin with version, slot and summary");
  auto* show_cmd = plugins_cmd->add_subcommand("show", "one plugin: summary, paper, parameters");
  show_cmd->add_option("id", show_id, "plugin id")->required();
  bool show_markdown = false;
  show_cmd->add_flag("--markdown", show_markdown,
                     "the parameter table alone, in Markdown (as in the plugin's README.md)");
  auto* markdown_cmd = plugins_cmd->add_subcommand("markdown", "the plugin reference as Markdown");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Under mpirun every rank parses the same words: rank 0 alone prints help or the error.
    std::ostringstream discarded;
    const bool quiet = radial::cli::quiet_rank();
    const int code = quiet ? app.exit(e, discarded, discarded) : app.exit(e);
    // --help and --version print through std::cout: a failed write is not a success either.
    if (code == 0 && !std::cout.flush()) {
      std::cerr << "radial: error: writing the results to stdout failed\n";
      return exit_not_written;
    }
    return code == 0 ? 0 : exit_bad_input;
  }

  radial::remove_temporaries_on_signals();
  // Under mpirun with P > 1 ranks, a failure every rank meets is printed once, by rank 0
  // (distributed.hpp); the exit code is every rank's.
  bool print_errors = true;
  try {
    if (radial::cli::distributed()) {
      print_errors = radial::cli::writes_results();
      if (!*train_cmd && !*predict_cmd && !*evaluate_cmd) {
        if (print_errors) {
          std::cerr << "radial: error: radial " << app.get_subcommands().front()->get_name()
                    << " does not run under mpirun (train, predict and evaluate do); run it "
                       "without mpirun\n";
        }
        return exit_bad_input;
      }
    }
    if (*inspect_cmd) return radial::cli::inspect_command(inspect_file);
    if (*results_cmd) return radial::cli::results_command(results);

    // Plugins are loaded once, at start, on this thread.
    radial::Registry registry;
    registry.load_default();

    if (*train_cmd) {
      if (*seed_opt) train.seed = parse_seed(seed);
      if (*threads_opt) train.threads = threads;
      return radial::cli::train_command(registry, train);
    }
    if (*experiment_cmd) return radial::cli::experiment_command(registry, experiment);
    if (*plot_cmd) return radial::cli::plot_command(registry, plot);
    if (*validate_cmd) return radial::cli::validate_command(registry, validate_file, validate_overrides);
    if (*predict_cmd) return radial::cli::predict_command(registry, predict);
    if (*evaluate_cmd) return radial::cli::evaluate_command(registry, evaluate);
    if (*plugins_cmd) {
      if (*show_cmd) return radial::cli::plugins_show_command(registry, show_id, show_markdown);
      if (*markdown_cmd) return radial::cli::plugins_markdown_command(registry);
      (void)list_cmd;
      return radial::cli::plugins_list_command(registry);
    }
  } catch (const radial::OutputError& e) {
    if (e.error_number() == EPIPE) return exit_broken_pipe;  // SIGPIPE was ignored: end as quietly
    if (print_errors) std::cerr << "radial: error: " << e.what() << "\n";
    return exit_not_written;
  } catch (const radial::InputError& e) {
    if (print_errors) std::cerr << "radial: error: " << e.what() << "\n";
    return exit_bad_input;
  } catch (const std::exception& e) {
    if (print_errors) std::cerr << "radial: internal error: " << e.what() << "\n";
    return exit_internal;
  }
  return exit_internal;
}
