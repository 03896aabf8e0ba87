#pragma once
// The plotting engine: gnuplot (Debian package gnuplot-nox), found on PATH at run time and
// driven through a pipe. Nothing outside `radial plot` and `radial train --plots` needs it.

#include <filesystem>
#include <string>

namespace radial::cli::plot {

// The gnuplot executable on PATH. InputError (exit 2) naming the package gnuplot-nox when there
// is none, so a missing engine is refused before any work.
std::filesystem::path find_gnuplot();

// Runs `terminal` (a `set terminal` line) then `script` (commands with the data inline as
// `$NAME << EOD` blocks) through gnuplot's standard input, with `set output` between them naming
// an in-memory file (memfd: nothing is left on disk, whatever ends the process, and no partial
// image is ever beside the user's output); the image's bytes are returned. A failure of gnuplot
// (non-zero exit, a signal, no image) throws std::runtime_error with its standard error;
// warnings on a successful run are passed on to our stderr.
std::string run_gnuplot(const std::string& terminal, const std::string& script);

}  // namespace radial::cli::plot
