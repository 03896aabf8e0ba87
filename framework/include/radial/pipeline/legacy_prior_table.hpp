#pragma once
// The one table both priors were written in before they became the two slots [weight-penalty]
// and [kernel-prior] (plugin ABI 2). Old pipelines still name it: the reader puts its plugin in
// the slot the plugin belongs to and warns (guard "deprecated-table"), its keys still work in
// --set, [search] and experiment grids, and experiment run keys hash the priors under this name
// so that results stored before keep their keys. Nothing else names it: the test
// tests/naming/check_slot_names.py fails on the old name anywhere outside this compatibility
// path.

namespace radial {

inline constexpr char kLegacyPriorTable[] = "regularizer";

}  // namespace radial
