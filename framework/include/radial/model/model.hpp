#pragma once
// A trained network as framework-owned data. Everything a prediction needs is here except the
// basis implementation, which is re-made from basis_id + basis_params and restored from
// basis_state. Written and read only by the model store (radial/model/model_store.hpp).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "radial/core/centres.hpp"
#include "radial/core/dataset.hpp"
#include "radial/network/link.hpp"
#include "radial/core/params.hpp"
#include "radial/data/standardiser.hpp"
#include "radial/core/state.hpp"
#include "radial/core/types.hpp"

namespace radial {

struct Model {
  // What the network was trained on.
  Task task = Task::Classification;
  std::vector<std::string> feature_names;
  std::string target_name;
  std::vector<double> class_values;      // class index -> label as in the training file
  std::vector<std::string> class_names;  // text labels (Dataset::class_names); empty: numbers
  InputCoding input_coding;              // nominal inputs (Dataset::coding); empty: none
  Vector imputation;                     // per input: the value of a missing cell; empty: none
  bool missing_em = false;               // [data] missing = "em": missing cells stay NaN and
                                         // the network integrates them out
  Centres input_model;                   // missing_em: the inputs' distribution (standardised
                                         // when standardize; fit_input_model in
                                         // radial/data/missing_values.hpp) for the expected
                                         // activation over missing inputs; no centres: none
                                         // (models before format 7, and without em)

  bool standardize = false;
  Standardiser standardiser;              // fitted when standardize

  Centres centres;
  std::string basis_id;
  std::map<std::string, ParamValue> basis_params;
  State basis_state;

  std::string output_id;
  Link link = Link::Identity;             // names the prediction rule (prediction_rule.hpp)
  Matrix weights;                         // (M+1) x columns, bias last, read by the rule

  // Provenance.
  std::string pipeline_text;
  std::string radial_version;
  std::map<std::string, std::string> plugin_versions;  // id -> version
  std::uint64_t seed = 0;
  std::string training_summary;           // the training report (JSON text)
};

}  // namespace radial
