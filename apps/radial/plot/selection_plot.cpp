// selection: the closed-form leave-one-out curves a run chose its width and penalty from, one
// line per (count, width scale) against alpha on a log axis, the chosen point marked.
#include <cmath>

#include "figure.hpp"
#include "kinds.hpp"
#include "radial/core/errors.hpp"

namespace radial::cli::plot {

PlotBody selection_plot(const ReportFile& report) {
  const auto found = report.json.find("selection");
  if (found == report.json.end() || !found->is_object() || !found->contains("curves") ||
      !(*found)["curves"].is_array() || (*found)["curves"].empty())
    throw InputError(report.file +
                     ": the report has no selection curves (the run chose "
                     "nothing: no \"choose\" value, or an output without weights)");
  // The prescreen's curves (classes on all their centres: every width on a subset of them)
  // dashed, then the curves the values were chosen from.
  nlohmann::json curves = nlohmann::json::array();
  std::vector<bool> prescreened;
  const auto& pre = (*found).contains("prescreen") ? (*found)["prescreen"] : nlohmann::json();
  if (pre.is_object() && pre.contains("curves") && pre["curves"].is_array())
    for (const auto& c : pre["curves"]) {
      curves.push_back(c);
      prescreened.push_back(true);
    }
  for (const auto& c : (*found)["curves"]) {
    curves.push_back(c);
    prescreened.push_back(false);
  }
  const bool counts = [&] {
    for (const auto& c : curves)
      if (c.value("count", 0) != curves[0].value("count", 0)) return true;
    return false;
  }();
  std::string blocks, plots;
  std::size_t k = 0;
  for (std::size_t i = 0; i < curves.size(); ++i) {
    const auto& c = curves[i];
    if (!c.is_object() || !c["alpha"].is_array() || !c["loo"].is_array() ||
        c["alpha"].size() != c["loo"].size())
      throw InputError(report.file + ": selection curve " + std::to_string(i + 1) +
                       " is malformed (alpha and loo arrays of one length expected)");
    std::vector<std::string> rows;
    for (std::size_t l = 0; l < c["alpha"].size(); ++l) {
      const auto& a = c["alpha"][l];
      const auto& v = c["loo"][l];
      if (!a.is_number() || !v.is_number() || !(a.get<double>() > 0)) continue;
      rows.push_back(number(a.get<double>()) + " " + number(v.get<double>()));
    }
    if (rows.empty()) continue;
    const std::string block = "SELECT" + std::to_string(++k);
    blocks += data_block(block, rows);
    std::string title = "width scale " + number(c.value("width_scale", 0.0));
    if (counts) title += ", " + std::to_string(c.value("count", 0)) + " centres";
    if (prescreened[i]) title += " (prescreen)";
    plots += std::string(plots.empty() ? "plot " : ", \\\n     ") + "$" + block +
             " using 1:2 with linespoints lt " + std::to_string(k) +
             (prescreened[i] ? " dt 2" : "") + " title " + quote(title);
  }
  if (plots.empty()) throw InputError(report.file + ": the selection curves hold no finite points");
  const nlohmann::json& chosen = (*found)["chosen"];
  if (chosen.is_object() && chosen.contains("weight-penalty.alpha") &&
      (*found)["loo"].is_number()) {
    // Chosen on a centre subset, alpha is carried to all the centres x alpha_transfer: the
    // point sits on the subset's curve, at the alpha it was chosen at there.
    const auto transfer_at = found->find("alpha_transfer");
    const double transfer = transfer_at != found->end() && transfer_at->is_number()
                                ? transfer_at->get<double>()
                                : 1.0;
    const bool carried = transfer > 0 && transfer != 1.0;
    const double alpha = chosen["weight-penalty.alpha"].get<double>();
    blocks += data_block("CHOSEN", {number(carried ? alpha / transfer : alpha) + " " +
                                    number((*found)["loo"].get<double>())});
    plots += ", \\\n     $CHOSEN using 1:2 with points pt 7 ps 1.6 lc rgb '#000000' title " +
             quote(carried ? "chosen (alpha x " + number(transfer) + " on all the centres)"
                           : std::string("chosen"));
  }
  const std::string settings =
      "set logscale x\nset xlabel 'weight-penalty alpha'\nset ylabel 'leave-one-out error'\n"
      "set format x '10^{%L}'\nset format y '%g'\n"
      "set key outside bottom center horizontal Left reverse noopaque nobox\n";
  return {"Model selection by leave-one-out", blocks + settings + plots + "\n"};
}

}  // namespace radial::cli::plot
