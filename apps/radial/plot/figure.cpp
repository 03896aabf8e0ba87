// Figures: output checks, the house style, gnuplot's terminal for each format.
#include "figure.hpp"

#include <cerrno>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "gnuplot.hpp"
#include "radial/core/errors.hpp"
#include "radial/io/output_file.hpp"
#include "radial/core/text.hpp"

namespace radial::cli::plot {
namespace {

std::string lower(std::string text) {
  for (char& ch : text) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return text;
}

// Sizes are given in pixels; fonts are chosen so that text reads at the size a page shows.
std::string terminal(ImageFormat format, int width, int height) {
  char size[64];
  switch (format) {
    case ImageFormat::Png:
      std::snprintf(size, sizeof size, "%d,%d", width, height);
      return std::string("set terminal pngcairo size ") + size +
             " noenhanced font 'sans,11' linewidth 1.2 background rgb 'white'";
    case ImageFormat::Pdf:
      std::snprintf(size, sizeof size, "%gin,%gin", width / 100.0, height / 100.0);
      return std::string("set terminal pdfcairo size ") + size +
             " noenhanced font 'sans,10' linewidth 1.5";
    default:
      std::snprintf(size, sizeof size, "%d,%d", width, height);
      return std::string("set terminal svg size ") + size +
             " fixed noenhanced font 'sans,14' linewidth 1.2 background rgb 'white'";
  }
}

std::string style(const std::string& title) {
  std::string s = "set encoding utf8\n";
  const auto& colours = colour_cycle();
  for (std::size_t k = 0; k < colours.size(); ++k) {
    s += "set linetype " + std::to_string(k + 1) + " lc rgb '" + colours[k] +
         "' lw 2 pt 7 ps 0.6 dt solid\n";
  }
  s += "set linetype cycle " + std::to_string(colours.size()) + "\n";
  s += "set border 3 lw 1 lc rgb '#333333'\n"
       "set tics nomirror out scale 0.6\n"
       "set grid back lw 1 lc rgb '#e6e6e6'\n"
       "set key top right opaque box lc rgb '#bbbbbb' samplen 2.5 spacing 1.15\n";
  if (!title.empty()) s += "set title " + quote(title) + "\n";
  return s;
}

}  // namespace

FigureTarget check_figure_output(const std::string& option, const std::string& file,
                                 const std::vector<NamedFile>& inputs,
                                 const std::vector<NamedOutput>& earlier) {
  FigureTarget figure;
  figure.name = file;
  const std::string ext = lower(std::filesystem::path(file).extension().string());
  if (ext == ".svg") figure.format = ImageFormat::Svg;
  else if (ext == ".png") figure.format = ImageFormat::Png;
  else if (ext == ".pdf") figure.format = ImageFormat::Pdf;
  else {
    throw InputError(option + " " + file + ": unsupported image extension '" + ext +
                     "'; name a file ending in .svg, .png or .pdf");
  }
  figure.target = checked_output(option, file, "image file", inputs, earlier);
  if (figure.target.kind == OutputTarget::Kind::Replace) {
    const std::filesystem::path folder = figure.target.path.parent_path().empty()
                                             ? std::filesystem::path(".")
                                             : figure.target.path.parent_path();
    if (::access(folder.c_str(), W_OK) != 0) {
      throw InputError(option + " " + file + ": the folder " + folder.string() +
                       " cannot be written; name a file in a writable folder");
    }
  }
  return figure;
}

void check_figure_size(int width, int height) {
  for (const auto& [name, value] : {std::pair<const char*, int>{"--width", width}, {"--height", height}}) {
    if (value < 100 || value > 10000) {
      throw InputError(std::string(name) + " " + std::to_string(value) +
                       ": give a size from 100 to 10000 pixels (a PDF takes 100 pixels per inch)");
    }
  }
}

const std::vector<std::string>& colour_cycle() {
  static const std::vector<std::string> colours{"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                "#E69F00", "#56B4E9", "#000000"};
  return colours;
}

unsigned rgb_value(const std::string& colour) {
  return unsigned(std::stoul(colour.substr(1), nullptr, 16));
}

std::string tint(std::size_t k, double strength) {
  const unsigned c = rgb_value(colour_cycle()[k % colour_cycle().size()]);
  strength = std::clamp(strength, 0.0, 1.0);
  char out[8];
  unsigned parts[3];
  for (int i = 0; i < 3; ++i) {
    const double channel = double((c >> (16 - 8 * i)) & 0xff);
    parts[i] = unsigned(std::lround(255.0 + strength * (channel - 255.0)));
  }
  std::snprintf(out, sizeof out, "#%02x%02x%02x", parts[0], parts[1], parts[2]);
  return out;
}

std::string quote(const std::string& text) {
  std::string out = "'";
  for (char ch : text) {
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) continue;
    out += ch == '\'' ? std::string("''") : std::string(1, ch);
  }
  return out + "'";
}

void require_drawable(double value, const std::string& what) {
  if (std::isfinite(value) && std::fabs(value) <= largest_drawable) return;
  throw InputError(what + " is " + text::number(value) +
                   ", which a figure cannot draw (finite values up to 1e300 in magnitude); "
                   "check the runs or reports, or choose another value");
}

std::string number(double value) {
  if (!std::isfinite(value)) return "NaN";
  return text::number(value, 17);
}

std::string data_block(const std::string& name, const std::vector<std::string>& rows) {
  std::string out = "$" + name + " << EOD\n";
  for (const std::string& row : rows) out += row + "\n";
  return out + "EOD\n";
}

std::string render_figure(ImageFormat format, int width, int height, const std::string& title,
                          const std::string& body) {
  return run_gnuplot(terminal(format, width, height), style(title) + body);
}

void write_figure(const FigureTarget& target, const std::string& bytes) {
  try {
    PendingOutput(target.target, bytes).commit();
  } catch (const OutputError& e) {
    // A full disk (or a quota, a size limit, an I/O error) is the machine's trouble: exit 1 as
    // for every result, `train --plots` too. Any other failure means --output names a place
    // that cannot hold a file (/proc, a missing folder): a bad --output, exit 2.
    const int error = e.error_number();
    if (error == ENOSPC || error == EDQUOT || error == EFBIG || error == EIO) throw;
    throw InputError(std::string(e.what()));
  }
}

}  // namespace radial::cli::plot
