// The out-of-tree kullback-leibler kernel prior: it registers in the kernel-prior slot, its
// distances are half the squared Mahalanobis distance computed here by hand, and it passes the
// conformance kit's kernel-prior checks.
#include <catch2/catch.hpp>

#include <radial/network/kernel_prior.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>

using radial::conformance::plugin_under_test;

TEST_CASE("kullback-leibler is a kernel prior and its distance is delta / 2 by hand") {
  const radial::ComponentInfo* info =
      plugin_under_test().find(radial::Slot::KernelPrior, "kullback-leibler");
  REQUIRE(info != nullptr);
  CHECK(plugin_under_test().find(radial::Slot::WeightPenalty, "kullback-leibler") == nullptr);

  // One diagonal kernel at (0, 0) with variances (1, 4); two classes with subkernel means (1, 2)
  // and (0, -2): delta = 1/1 + 4/4 = 2 and 0 + 4/4 = 1, so D = (1, 0.5).
  radial::KernelPriorInput in;
  in.rows = 10;
  in.kernels.shape = radial::Shape::Diagonal;
  in.kernels.means = radial::Matrix{{0.0, 0.0}};
  in.kernels.diagonal = radial::Matrix{{1.0, 4.0}};
  in.subkernel_means = radial::Tensor3::from_shape({1, 2, 2});
  in.subkernel_means(0, 0, 0) = 1;
  in.subkernel_means(0, 0, 1) = 2;
  in.subkernel_means(0, 1, 0) = 0;
  in.subkernel_means(0, 1, 1) = -2;
  in.class_given_kernel = radial::Matrix{{0.25, 0.75}};
  const auto prior = plugin_under_test().make_kernel_prior(
      "kullback-leibler", radial::validate_params(info->params, {{"alpha", 2.0}}, "test"));
  const radial::Matrix d = prior->kernel_distances(in);
  CHECK(d(0, 0) == Approx(1.0));
  CHECK(d(0, 1) == Approx(0.5));
  // alpha sum_k P(C_k|j) D_jk = 2 (0.25 + 0.375) = 1.25.
  CHECK(prior->kernel_penalty(in) == Approx(1.25));
}

TEST_CASE("kullback-leibler passes the conformance kit") {
  radial::conformance::check_plugin(plugin_under_test(), "kullback-leibler");
}
