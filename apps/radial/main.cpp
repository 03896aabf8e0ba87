// radial: train, evaluate and apply RBF networks assembled from plugins by a pipeline file.
// Results go to stdout or files, logs to stderr. Exit codes: 0 success, 2 bad input or usage
// (an output refused before any work included), 1 results that could not be written or an
// internal failure; a reader of stdout that leaves early ends the run quietly, by SIGPIPE.
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "distributed.hpp"
#include "plot/plot_command.hpp"
#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/io/output_file.hpp"
#include "radial/core/version.hpp"

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

// A count of threads or jobs. CLI11's NonNegativeNumber would name its range as two doubles
// ("not in range 0.000000 to 1797693...", 300 digits); this says what to give instead.
CLI::Validator count_of(const std::string& what) {
  return CLI::Validator(
      [what](std::string& text) -> std::string {
        if (!text.empty() && text.size() <= 9 &&
            std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
          return {};
        const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
        return "'" + text + "' is not a number of " + what + "; give 0 (all cores) or a whole " +
               "number such as " + std::to_string(hardware) + " (this machine's hardware " +
               "threads; more are capped to them)";
      },
      "COUNT");
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

// Formats of `radial experiment` and `radial results` tables.
const std::vector<std::string> table_formats{"text", "markdown", "csv", "json"};

// The command line: each sub-command's arguments, which CLI11 fills, and the sub-commands and
// options to ask which were given. Options point into it, so it stays where it was made.
struct CommandLine {
  CLI::App app{"radial — train radial basis function networks from pipeline files"};

  radial::cli::TrainArgs train;
  std::string seed;
  int threads = 0;
  CLI::App* train_cmd = nullptr;
  CLI::Option* seed_opt = nullptr;
  CLI::Option* threads_opt = nullptr;

  std::string validate_file;
  std::vector<std::string> validate_overrides;
  CLI::App* validate_cmd = nullptr;

  radial::cli::PredictArgs predict;
  CLI::App* predict_cmd = nullptr;
  radial::cli::EvaluateArgs evaluate;
  CLI::App* evaluate_cmd = nullptr;
  radial::cli::ExperimentArgs experiment;
  CLI::App* experiment_cmd = nullptr;
  radial::cli::ResultsArgs results;
  CLI::App* results_cmd = nullptr;
  radial::cli::PlotArgs plot;
  CLI::App* plot_cmd = nullptr;

  std::string inspect_file;
  CLI::App* inspect_cmd = nullptr;

  std::string show_id;
  bool show_markdown = false;
  CLI::App* plugins_cmd = nullptr;
  CLI::App* show_cmd = nullptr;
  CLI::App* markdown_cmd = nullptr;
};

void add_train(CommandLine& c) {
  radial::cli::TrainArgs& train = c.train;
  auto* cmd = c.train_cmd = c.app.add_subcommand("train", "train a network from a pipeline file");
  cmd->add_option("pipeline", train.pipeline, "pipeline file (TOML)")->required();
  cmd->add_option("--set", train.overrides, "override a pipeline value: slot.key=value")
      ->allow_extra_args(false);
  cmd->add_option("--model", train.model, "write the trained model to this file");
  cmd->add_option("--report", train.report, "write the JSON report to this file (default: stdout)");
  c.seed_opt =
      cmd->add_option("--seed", c.seed, "random seed, 0 to 2^63-1 (overrides the pipeline's)");
  c.threads_opt = cmd->add_option("--threads", c.threads, "threads (0: all cores)")
                      ->check(count_of("threads"));
  cmd->add_flag("--quiet,-q", train.quiet, "no progress lines on stderr");
  cmd->add_option("--plots", train.plots,
                  "write the run's learning curve (and decision regions) as SVG into this folder");
  cmd->add_flag("--json", train.json, "the JSON report on stdout even when it is a terminal");
}

// validate, predict and evaluate: a pipeline or a model, and a data file.
void add_model_commands(CommandLine& c) {
  c.validate_cmd = c.app.add_subcommand("validate", "check a pipeline file without training");
  c.validate_cmd->add_option("pipeline", c.validate_file, "pipeline file (TOML)")->required();
  c.validate_cmd->add_option("--set", c.validate_overrides,
                             "override a pipeline value: slot.key=value");

  radial::cli::PredictArgs& predict = c.predict;
  c.predict_cmd = c.app.add_subcommand("predict", "apply a model to a CSV file");
  c.predict_cmd->add_option("model", predict.model, "model file")->required();
  c.predict_cmd->add_option("data", predict.data, "CSV file with the model's feature columns")
      ->required();
  c.predict_cmd->add_flag("--probabilities", predict.probabilities,
                          "also write class probabilities");
  c.predict_cmd->add_option("--output", predict.output, "write the CSV here (default: stdout)");

  radial::cli::EvaluateArgs& evaluate = c.evaluate;
  c.evaluate_cmd = c.app.add_subcommand("evaluate", "metrics of a model on a labelled CSV file");
  c.evaluate_cmd->add_option("model", evaluate.model, "model file")->required();
  c.evaluate_cmd->add_option("data", evaluate.data, "CSV file with features and target")
      ->required();
  c.evaluate_cmd->add_option("--report", evaluate.report, "write the JSON here (default: stdout)");
}

// experiment and results: many runs, and the tables of their database.
void add_experiment_commands(CommandLine& c) {
  radial::cli::ExperimentArgs& experiment = c.experiment;
  auto* cmd = c.experiment_cmd = c.app.add_subcommand(
      "experiment",
      "run an experiment file (datasets x pipelines x grid x seeds), print its table");
  cmd->add_option("file", experiment.file, "experiment file (TOML)")->required();
  cmd->add_option("--results", experiment.results,
                  "results database (default: <file stem>.results.sqlite beside the file)");
  cmd->add_option("--jobs,-j", experiment.jobs, "runs at once (0: all cores)")
      ->check(count_of("jobs"));
  cmd->add_option("--format", experiment.format, "text, markdown, csv or json (every run)")
      ->check(CLI::IsMember(table_formats));
  cmd->add_flag("--quiet,-q", experiment.quiet, "no progress on stderr");
  cmd->add_flag("--retry-failed", experiment.retry_failed,
                "run again the runs stored as failed (else they count as done)");

  radial::cli::ResultsArgs& results = c.results;
  c.results_cmd = c.app.add_subcommand("results", "print tables from a results database");
  c.results_cmd->add_option("database", results.database, "results database (.sqlite)")->required();
  c.results_cmd->add_option("--format", results.format, "text, markdown, csv or json (every run)")
      ->check(CLI::IsMember(table_formats));
  c.results_cmd->add_option(
      "--table", results.table,
      "change the experiment's [table]: rows=DIM[+DIM],columns=DIM[+DIM],value=PATH,compare=A+B");
}

void add_plot(CommandLine& c) {
  radial::cli::PlotArgs& plot = c.plot;
  auto* cmd = c.plot_cmd = c.app.add_subcommand(
      "plot", "draw a report, model or results database with gnuplot (docs/plotting.md)");
  cmd->add_option("kind", plot.kind,
                  "learning-curve, series, selection, decision-regions or results")
      ->required();
  cmd->add_option("inputs", plot.inputs, "REPORT... | REPORT | MODEL DATA | DB")->required();
  cmd->add_option("--output,-o", plot.output, "image file: .svg, .png or .pdf")->required();
  cmd->add_option("--title", plot.title, "title (default: the kind's own)");
  cmd->add_option("--width", plot.width, "width in pixels (PDF: 100 per inch)");
  cmd->add_option("--height", plot.height, "height in pixels (PDF: 100 per inch)");
  cmd->add_option("--stage", plot.stage, "centres or output (learning-curve, series)");
  cmd->add_option("--x", plot.x, "iteration, flops or seconds (learning-curve)");
  cmd->add_flag("--logx", plot.logx, "logarithmic x axis");
  cmd->add_flag("--logy", plot.logy, "logarithmic y axis");
  cmd->add_option("--label", plot.labels, "a legend label per report, in order")
      ->allow_extra_args(false);
  cmd->add_option("--names", plot.names, "series to draw, comma-separated (series)")
      ->delimiter(',');
  cmd->add_flag("--probabilities", plot.probabilities, "shade regions by the posterior");
  cmd->add_option("--xrange", plot.xrange, "LO:HI of the first input (decision-regions)");
  cmd->add_option("--yrange", plot.yrange, "LO:HI of the second input (decision-regions)");
  cmd->add_option("--rows", plot.rows, "table rows: DIM[+DIM] (results)");
  cmd->add_option("--columns", plot.columns, "table columns: DIM[+DIM] (results)");
  cmd->add_option("--value", plot.value, "report value, e.g. test.error_rate (results)");
}

// inspect and plugins: what a model file and the installed plugins hold.
void add_inspection_commands(CommandLine& c) {
  c.inspect_cmd = c.app.add_subcommand("inspect", "show what a model file holds");
  c.inspect_cmd->add_option("model", c.inspect_file, "model file")->required();

  c.plugins_cmd = c.app.add_subcommand("plugins", "list plugins, or show one with its parameters");
  c.plugins_cmd->add_subcommand("list", "every plugin with version, slot and summary");
  c.show_cmd = c.plugins_cmd->add_subcommand("show", "one plugin: summary, paper, parameters");
  c.show_cmd->add_option("id", c.show_id, "plugin id")->required();
  c.show_cmd->add_flag("--markdown", c.show_markdown,
                       "the parameter table alone, in Markdown (as in the plugin's README.md)");
  c.markdown_cmd = c.plugins_cmd->add_subcommand("markdown", "the plugin reference as Markdown");
}

// The exit code when parsing ends the run (--help, --version or a usage error), else nothing.
std::optional<int> parse(CommandLine& c, int argc, char** argv) {
  try {
    c.app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Under mpirun every rank parses the same words: rank 0 alone prints help or the error.
    std::ostringstream discarded;
    const bool quiet = radial::cli::quiet_rank();
    const int code = quiet ? c.app.exit(e, discarded, discarded) : c.app.exit(e);
    // --help and --version print through std::cout: a failed write is not a success either.
    if (code == 0 && !std::cout.flush()) {
      std::cerr << "radial: error: writing the results to stdout failed\n";
      return exit_not_written;
    }
    return code == 0 ? 0 : exit_bad_input;
  }
  return std::nullopt;
}

// Runs the sub-command given. Under mpirun with P > 1 ranks, a failure every rank meets is
// printed once, by rank 0 (distributed.hpp): `print_errors` says whether this rank prints.
int run(CommandLine& c, bool& print_errors) {
  if (radial::cli::distributed()) {
    print_errors = radial::cli::writes_results();
    if (!*c.train_cmd && !*c.predict_cmd && !*c.evaluate_cmd) {
      if (print_errors) {
        std::cerr << "radial: error: radial " << c.app.get_subcommands().front()->get_name()
                  << " does not run under mpirun (train, predict and evaluate do); run it "
                     "without mpirun\n";
      }
      return exit_bad_input;
    }
  }
  if (*c.inspect_cmd) return radial::cli::inspect_command(c.inspect_file);
  if (*c.results_cmd) return radial::cli::results_command(c.results);

  // Plugins are loaded once, at start, on this thread.
  radial::Registry registry;
  registry.load_default();

  if (*c.train_cmd) {
    if (*c.seed_opt) c.train.seed = parse_seed(c.seed);
    if (*c.threads_opt) c.train.threads = c.threads;
    return radial::cli::train_command(registry, c.train);
  }
  if (*c.experiment_cmd) return radial::cli::experiment_command(registry, c.experiment);
  if (*c.plot_cmd) return radial::cli::plot_command(registry, c.plot);
  if (*c.validate_cmd)
    return radial::cli::validate_command(registry, c.validate_file, c.validate_overrides);
  if (*c.predict_cmd) return radial::cli::predict_command(registry, c.predict);
  if (*c.evaluate_cmd) return radial::cli::evaluate_command(registry, c.evaluate);
  if (*c.plugins_cmd) {
    if (*c.show_cmd) return radial::cli::plugins_show_command(registry, c.show_id, c.show_markdown);
    if (*c.markdown_cmd) return radial::cli::plugins_markdown_command(registry);
    return radial::cli::plugins_list_command(registry);
  }
  return exit_internal;
}

}  // namespace

int main(int argc, char** argv) {
  hold_closed_standard_streams();
  keep_freed_memory();
  CommandLine c;
  c.app.set_version_flag("--version", std::string("radial ") + radial::version);
  c.app.require_subcommand(1);
  add_train(c);
  add_model_commands(c);
  add_experiment_commands(c);
  add_plot(c);
  add_inspection_commands(c);
  if (const std::optional<int> code = parse(c, argc, argv)) return *code;

  radial::remove_temporaries_on_signals();
  bool print_errors = true;
  try {
    return run(c, print_errors);
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
}
