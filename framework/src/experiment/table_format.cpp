// Tables printed for people (text, markdown) and for programs (csv, json), and every stored run
// as JSON (`radial results --format json`).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "radial/io/json_depth.hpp"
#include "radial/experiment/results_table.hpp"

namespace radial {
namespace {

using nlohmann::json;

// For people, one style per table so a column reads evenly: integers when every mean and sd is
// one (iteration counts), three decimals for ordinary magnitudes ("0.123 ± 0.004", as the papers
// print error rates), else four significant digits (flops).
enum class Style { Integer, Fixed, General };

Style style_of(const Table& t) {
  bool integers = true, ordinary = true, any = false;
  for (const auto& row : t.cells) {
    for (const TableCell& c : row) {
      for (const auto& x : {c.mean, c.sd}) {
        if (!x) continue;
        any = true;
        if (*x != std::round(*x) || std::fabs(*x) >= 1e15) integers = false;
        if (x == c.mean && *x != 0 && (std::fabs(*x) < 1e-3 || std::fabs(*x) >= 1e5)) {
          ordinary = false;
        }
      }
    }
  }
  if (any && integers) return Style::Integer;
  return ordinary ? Style::Fixed : Style::General;
}

std::string human(double x, Style style) {
  char buffer[64];
  switch (style) {
    case Style::Integer: std::snprintf(buffer, sizeof buffer, "%.0f", x); break;
    case Style::Fixed: std::snprintf(buffer, sizeof buffer, "%.3f", x); break;
    case Style::General: std::snprintf(buffer, sizeof buffer, "%.4g", x); break;
  }
  return buffer;
}

// Differences are small against the values: three significant digits, signed.
std::string signed_human(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%+.3g", x);
  return x == 0 ? "0" : buffer;
}

// For programs: the shortest text that reads back as the same double.
std::string exact(const std::optional<double>& x) { return x ? json(*x).dump() : ""; }

std::string cell_text(const TableCell& c, Style style) {
  if (c.runs == 0) return "";
  std::string text;
  if (c.mean) {
    text = human(*c.mean, style);
    if (c.sd) text += " ± " + human(*c.sd, style);
    if (c.failed) text += " (" + std::to_string(c.failed) + " failed)";
  } else if (c.failed) {
    text = c.failed == c.runs ? "failed" : std::to_string(c.failed) + " failed";
  } else {
    text = "n/a";
  }
  return text;
}

std::string p_text(const std::optional<double>& p) {
  if (!p) return "-";
  char buffer[32];
  if (*p < 1e-4) std::snprintf(buffer, sizeof buffer, "%.1e", *p);
  else std::snprintf(buffer, sizeof buffer, "%.4f", *p);
  return buffer;
}

// Display width: UTF-8 continuation bytes ("±") take no column.
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
}

std::string pad(const std::string& s, std::size_t w, bool right) {
  const std::string space(w > width(s) ? w - width(s) : 0, ' ');
  return right ? space + s : s + space;
}

using Grid = std::vector<std::vector<std::string>>;  // first row: the header

std::string aligned(const Grid& grid) {
  std::vector<std::size_t> widths;
  for (const auto& row : grid) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], width(row[c]));
  }
  std::string out;
  for (const auto& row : grid) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += (c ? "  " : "") + pad(row[c], widths[c], c > 0);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string markdown(const Grid& grid) {
  auto escape = [](const std::string& s) {
    std::string e;
    for (char c : s) e += c == '|' ? std::string("\\|") : std::string(1, c);
    return e;
  };
  std::string out;
  for (std::size_t r = 0; r < grid.size(); ++r) {
    out += "|";
    for (const auto& cell : grid[r]) out += " " + escape(cell) + " |";
    out += "\n";
    if (r == 0) {
      out += "|";
      for (std::size_t c = 0; c < grid[r].size(); ++c) out += c ? " ---: |" : " --- |";
      out += "\n";
    }
  }
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

Grid value_grid(const Table& t) {
  Grid grid;
  std::vector<std::string> header{t.row_header};
  header.insert(header.end(), t.column_labels.begin(), t.column_labels.end());
  grid.push_back(header);
  const Style style = style_of(t);
  for (std::size_t r = 0; r < t.row_labels.size(); ++r) {
    std::vector<std::string> row{t.row_labels[r]};
    for (const TableCell& c : t.cells[r]) row.push_back(cell_text(c, style));
    grid.push_back(row);
  }
  return grid;
}

std::string comparison_title(const Table& t) {
  return t.compared[1] + " - " + t.compared[0] + " (" + t.value +
         ", paired over seeds and folds; wins: " + t.compared[1] + " lower)";
}

Grid comparison_grid(const Table& t) {
  Grid grid{{t.row_header, "pairs", "mean difference", "wins/ties/losses", "sign test p",
             "paired t p"}};
  for (std::size_t r = 0; r < t.row_labels.size(); ++r) {
    const auto& c = t.comparisons[r];
    if (!c) {
      grid.push_back({t.row_labels[r], "0", "-", "-", "-", "-"});
      continue;
    }
    grid.push_back({t.row_labels[r], std::to_string(c->pairs), signed_human(c->mean_difference),
                    std::to_string(c->wins) + "/" + std::to_string(c->ties) + "/" +
                        std::to_string(c->losses),
                    p_text(c->sign_p), p_text(c->t_p)});
  }
  return grid;
}

std::string heading(const Table& t) {
  return (t.title.empty() ? "" : t.title + ": ") + t.value + " (mean ± sd over runs)";
}

json optional_json(const std::optional<double>& x) { return x ? json(*x) : json(nullptr); }

json table_json(const Table& t) {
  json cells = json::array();
  for (const auto& row : t.cells) {
    json jr = json::array();
    for (const TableCell& c : row) {
      jr.push_back({{"runs", c.runs}, {"failed", c.failed}, {"mean", optional_json(c.mean)},
                    {"sd", optional_json(c.sd)}});
    }
    cells.push_back(std::move(jr));
  }
  json j{{"title", t.title}, {"value", t.value}, {"row_header", t.row_header},
         {"rows", t.row_labels}, {"columns", t.column_labels}, {"cells", std::move(cells)}};
  if (!t.compared.empty()) {
    json rows = json::array();
    for (const auto& c : t.comparisons) {
      if (!c) {
        rows.push_back(nullptr);
        continue;
      }
      rows.push_back({{"pairs", c->pairs}, {"mean_difference", c->mean_difference},
                      {"wins", c->wins}, {"ties", c->ties}, {"losses", c->losses},
                      {"sign_p", optional_json(c->sign_p)}, {"t_p", optional_json(c->t_p)}});
    }
    j["compare"] = {{"a", t.compared[0]}, {"b", t.compared[1]}, {"rows", std::move(rows)}};
  }
  return j;
}

// One CSV table: per column its mean, sd, runs and failed; with a comparison, its figures
// appended to each row.
std::string table_csv(const Table& t) {
  std::vector<std::string> header{t.row_header};
  for (const auto& label : t.column_labels) {
    for (const char* what : {" mean", " sd", " runs", " failed"}) header.push_back(label + what);
  }
  if (!t.compared.empty()) {
    for (const char* what : {"pairs", "mean_difference", "wins", "ties", "losses", "sign_p", "t_p"}) {
      header.push_back(what);
    }
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + csv_field(fields[i]);
    out += "\n";
  };
  line(header);
  for (std::size_t r = 0; r < t.row_labels.size(); ++r) {
    std::vector<std::string> fields{t.row_labels[r]};
    for (const TableCell& c : t.cells[r]) {
      fields.push_back(exact(c.mean));
      fields.push_back(exact(c.sd));
      fields.push_back(std::to_string(c.runs));
      fields.push_back(std::to_string(c.failed));
    }
    if (!t.compared.empty()) {
      const auto& c = t.comparisons[r];
      if (c) {
        fields.insert(fields.end(), {std::to_string(c->pairs), exact(c->mean_difference),
                                     std::to_string(c->wins), std::to_string(c->ties),
                                     std::to_string(c->losses), exact(c->sign_p), exact(c->t_p)});
      } else {
        fields.insert(fields.end(), {"0", "", "", "", "", "", ""});
      }
    }
    line(fields);
  }
  return out;
}

json parsed_or_null(const json& report, const char* key) {
  return report.is_object() && report.contains(key) ? report[key] : json(nullptr);
}

}  // namespace

std::string format_table(const Table& table, TableFormat format) {
  switch (format) {
    case TableFormat::Text: {
      std::string out = heading(table) + "\n" + aligned(value_grid(table));
      if (!table.compared.empty()) {
        out += "\n" + comparison_title(table) + "\n" + aligned(comparison_grid(table));
      }
      return out;
    }
    case TableFormat::Markdown: {
      std::string out = "**" + heading(table) + "**\n\n" + markdown(value_grid(table));
      if (!table.compared.empty()) {
        out += "\n**" + comparison_title(table) + "**\n\n" + markdown(comparison_grid(table));
      }
      return out;
    }
    case TableFormat::Csv:
      return table_csv(table);
    case TableFormat::Json:
      return table_json(table).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  }
  return {};
}

std::string runs_json(const std::vector<RunRecord>& runs) {
  json list = json::array();
  for (const RunRecord& r : runs) {
    // Too deep to be a report (radial/io/json_depth.hpp): read as not JSON.
    json report = r.report.empty() || !json_depth_ok(r.report)
                      ? json(nullptr)
                      : json::parse(r.report, nullptr, /*allow_exceptions=*/false);
    if (report.is_discarded()) report = nullptr;
    json overrides = json_depth_ok(r.overrides)
                         ? json::parse(r.overrides.empty() ? "{}" : r.overrides, nullptr, false)
                         : json(json::value_t::discarded);
    if (overrides.is_discarded()) overrides = r.overrides;  // kept as stored, if not JSON
    list.push_back({{"experiment", r.experiment},
                    {"dataset", r.dataset},
                    {"pipeline", r.pipeline},
                    {"seed", r.seed},
                    {"overrides", std::move(overrides)},
                    {"status", r.status},
                    {"message", r.message},
                    {"seconds", std::isfinite(r.seconds) ? json(r.seconds) : json(nullptr)},
                    {"train", parsed_or_null(report, "train")},
                    {"test", parsed_or_null(report, "test")},
                    {"cv", parsed_or_null(report, "cv")},
                    {"search", parsed_or_null(report, "search")}});
  }
  // Stored names and overrides that are not UTF-8 (a damaged or crafted database) come out
  // with U+FFFD in place of the bad bytes, not as an exception.
  return json{{"runs", std::move(list)}}.dump(2, ' ', false, json::error_handler_t::replace) +
         "\n";
}

}  // namespace radial
