#include "cauchy.hpp"

#include <radial/core/errors.hpp>
#include <radial/core/state.hpp>

namespace cauchy_plugin {

radial::OptionTable<CauchyOptions> cauchy_table() {
  radial::OptionTable<CauchyOptions> t;
  t.include(&CauchyOptions::width, radial::width_table("cauchy"));
  return t;
}

void CauchyBasis::prepare(radial::Centres& centres, radial::FitContext& ctx) {
  if (centres.means.dimension() != 2 || centres.count() == 0)
    throw radial::ShapeError("basis cauchy: there are no centres to place the basis on");
  // density = false: an activation, so the rule Auto stands for is the nearest-centre rule.
  const radial::WidthResult applied =
      radial::apply_width_rule(centres, options_.width, false, ctx);
  rule_applied_ = radial::to_string(applied.rule);
}

void CauchyBasis::map(radial::Matrix& r2) const {
  for (double& v : r2) v = 1.0 / (1.0 + v);
}

bool CauchyBasis::width_scale_selectable() const {
  return radial::width_scale_choosable(options_.width, false);
}

void CauchyBasis::map_derivative(const radial::Matrix& r2, const radial::Matrix& phi,
                                 radial::Matrix& dphi) const {
  dphi.resize({r2.shape(0), r2.shape(1)});
  for (std::size_t i = 0; i < phi.size(); ++i) dphi.data()[i] = -phi.data()[i] * phi.data()[i];
}

radial::State CauchyBasis::state() const { return {{"width_rule", rule_applied_}}; }

void CauchyBasis::load_state(const radial::State& state) {
  rule_applied_ = radial::state_get<std::string>(state, "width_rule", "basis cauchy");
}

}  // namespace cauchy_plugin
