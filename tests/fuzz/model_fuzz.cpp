// Fuzz target: the model reader (header, Boost archive, consistency check), then what
// `radial predict` does with the model: the basis re-made from the registry and restored from
// its state, the network, and a prediction of one row of zeros.
//
// An input starting with "RADIAL-MODEL" is read as a whole file (the header is fuzzed). Any
// other input is taken as the payload and given a correct header, so mutations reach the
// archive reader instead of stopping at the checksum: the checksum guards against damage, not
// intent, so the archive must hold on its own.
#include <cstddef>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <xtensor/xbuilder.hpp>

#include "fuzz_support.hpp"
#include "radial/core/errors.hpp"
#include "radial/model/model_store.hpp"
#include "radial/model/network.hpp"
#include "radial/core/params.hpp"

namespace {

// FNV-1a 64 (the model store's payload checksum), written out here so the target does not
// depend on the store's internals.
std::string checksum_hex(const std::string& payload) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : payload) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::string as_model_file(const std::string& input) {
  static const std::string magic = "RADIAL-MODEL";
  if (input.compare(0, magic.size(), magic) == 0) return input;
  return magic + " " + std::to_string(radial::model_format_version) + " " +
         std::to_string(input.size()) + " " + checksum_hex(input) + "\n" + input;
}

void predict_zeros(const radial::Model& model) {
  using namespace radial;
  const Registry& registry = fuzz::registry();
  const ComponentInfo* info = registry.find(Slot::Basis, model.basis_id);
  if (!info) return;  // the CLI refuses with a PluginError naming the plugin
  auto basis = registry.make_basis(model.basis_id,
                                   validate_params(info->params, model.basis_params, "basis in fuzz.model"));
  basis->load_state(model.basis_state);
  const std::size_t features =
      model.feature_names.empty() ? model.centres.means.shape(1) : model.feature_names.size();
  const Matrix inputs = xt::zeros<double>({std::size_t(1), features});
  Network network(model, basis);
  const Matrix outputs = network.predict(inputs);
  // A prediction is finite or refused (a crafted model's huge weights once printed inf).
  for (const double y : outputs) {
    if (!std::isfinite(y)) {
      std::fprintf(stderr, "model fuzz: a non-finite output (%g) was returned\n", y);
      std::abort();
    }
  }
  if (model.task == Task::Classification) {
    // `radial predict` prints class_values[predicted]: that index must exist.
    const Labels predicted = Network::classify(outputs);
    for (std::size_t i = 0; i < predicted.size(); ++i) {
      if (predicted(i) < 0 || std::size_t(predicted(i)) >= model.class_values.size()) {
        std::fprintf(stderr, "model fuzz: predicted class index %lld but the model has %zu class values\n",
                     static_cast<long long>(predicted(i)), model.class_values.size());
        std::abort();
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  RADIAL_FUZZ_ACCEPT_ERRORS({
    const radial::Model model = radial::deserialize_model(as_model_file(input), "fuzz.model");
    predict_zeros(model);
  });
  return 0;
}
