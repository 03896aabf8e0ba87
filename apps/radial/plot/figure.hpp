#pragma once
// One figure: its image format (by the output's extension), size, title and the house style
// (one colour cycle, sans fonts, light grid), rendered by gnuplot and written atomically.

#include <string>
#include <vector>

#include "../outputs.hpp"

namespace radial::cli::plot {

enum class ImageFormat { Svg, Png, Pdf };

struct FigureOptions {
  std::string output;  // FILE.svg, FILE.png or FILE.pdf
  std::string title;   // empty: the kind's own title
  int width = 800, height = 600;  // pixels; a PDF is width/100 x height/100 inches
};

// The output checked before any work: an extension gnuplot can write (InputError naming the
// file and the three accepted), a file that is not one of `inputs`, a folder that exists and can
// be written (all exit 2).
struct FigureTarget {
  ImageFormat format = ImageFormat::Svg;
  OutputTarget target;
  std::string name;
};
FigureTarget check_figure_output(const std::string& option, const std::string& file,
                                 const std::vector<NamedFile>& inputs,
                                 const std::vector<NamedOutput>& earlier = {});
void check_figure_size(int width, int height);

// The colour cycle (Okabe & Ito's colour-blind-safe set): series k uses colour k mod size.
const std::vector<std::string>& colour_cycle();
// colour_cycle()[k] mixed with white: strength 0 is white, 1 the colour itself. "#rrggbb".
std::string tint(std::size_t k, double strength);
// The 24-bit value of a "#rrggbb" colour (for gnuplot's `lc rgb variable` and rgbimage).
unsigned rgb_value(const std::string& colour);

// gnuplot's single-quoted string (quotes doubled, control characters dropped).
std::string quote(const std::string& text);
// A number as gnuplot reads it back exactly; NaN ("NaN") for non-finite values.
std::string number(double value);

// The largest magnitude a figure draws: gnuplot's axis arithmetic overflows near 1e308 and
// then fails with "all points undefined".
constexpr double largest_drawable = 1e300;

// InputError "`what` is `value`, which a figure cannot draw ..." unless value is finite and at
// most largest_drawable in magnitude.
void require_drawable(double value, const std::string& what);
// `$NAME << EOD` ... `EOD` with `rows` (each a line of space-separated fields).
std::string data_block(const std::string& name, const std::vector<std::string>& rows);

// The image bytes of `body` (data blocks, settings, plot commands) under the house style.
std::string render_figure(ImageFormat format, int width, int height, const std::string& title,
                          const std::string& body);

// Writes prepared bytes to a checked target; a failure is an InputError naming the file
// (exit 2), and the previous file is left as it was.
void write_figure(const FigureTarget& target, const std::string& bytes);

}  // namespace radial::cli::plot
