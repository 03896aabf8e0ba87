// What an output layer says it holds (OutputLayer::working_memory), which the trainer compares
// with the memory available before the output stage: the figures by hand for N = 100 rows,
// M = 9 centres (M + 1 = 10), K = 3 or 1 outputs.
#include <string>

#include <catch2/catch.hpp>

#include "radial/network/output_layer.hpp"
#include "radial/core/params.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/registry.hpp"

namespace {

radial::WorkingMemory memory_of(const std::string& id, std::size_t outputs) {
  const radial::Registry& registry = radial::testing::shipped_registry();
  const auto layer = registry.make_output_layer(
      id, radial::validate_params(registry.require(radial::Slot::Output, id).params, {},
                                  "test " + id));
  return layer->working_memory(100, 9, outputs);
}

}  // namespace

TEST_CASE("output layers state their working memory", "[memory]") {
  // A few (M + 1)^2 blocks and the N x K targets: 8 (4 * 10^2 + 100 K) bytes.
  for (const char* id : {"least-squares", "scg"}) {
    INFO(id);
    CHECK(memory_of(id, 3).bytes == 8.0 * (400 + 300));
    CHECK(memory_of(id, 3).remedy.empty());
  }
  // IRLS: the softmax Hessian of K (M + 1) = 30 weights and its solve, 4 * 30^2 more doubles;
  // for one output one Hessian, 4 * 10^2.
  const radial::WorkingMemory softmax = memory_of("irls", 3);
  CHECK(softmax.bytes == 8.0 * (400 + 300 + 4 * 900));
  CHECK(softmax.what == "the softmax Hessian and its solve, 4 (K (M + 1))^2 doubles");
  CHECK(softmax.remedy == ", or output plugin \"scg\"");
  const radial::WorkingMemory logistic = memory_of("irls", 1);
  CHECK(logistic.bytes == 8.0 * (400 + 100 + 4 * 100));
  CHECK(logistic.remedy.empty());
  // BFGS: the inverse Hessian estimate, 2 * 30^2 doubles.
  const radial::WorkingMemory bfgs = memory_of("bfgs", 3);
  CHECK(bfgs.bytes == 8.0 * (400 + 300 + 2 * 900));
  CHECK(bfgs.what == "the inverse Hessian estimate, 2 (K (M + 1))^2 doubles");
}
