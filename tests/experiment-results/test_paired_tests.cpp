// Paired sign test and paired t test against scipy.
#include <catch2/catch.hpp>

#include "radial/experiment/results_table.hpp"

using radial::compare_paired;

TEST_CASE("paired comparison: differences, wins/ties/losses and p-values as scipy computes them") {
  const std::vector<double> a{0.12, 0.15, 0.11, 0.14, 0.13, 0.16, 0.10, 0.12};
  const std::vector<double> b{0.10, 0.13, 0.12, 0.11, 0.13, 0.12, 0.09, 0.10};
  const auto c = compare_paired(a, b);
  CHECK(c.pairs == 8);
  // b - a = -0.02 -0.02 +0.01 -0.03 0 -0.04 -0.01 -0.02: mean -0.01625 by hand.
  CHECK(c.mean_difference == Approx(-0.01625).margin(1e-12));
  CHECK(c.wins == 6);
  CHECK(c.ties == 1);
  CHECK(c.losses == 1);
  // /usr/bin/python3 -c "from scipy import stats; a=[0.12,0.15,0.11,0.14,0.13,0.16,0.10,0.12];
  //   b=[0.10,0.13,0.12,0.11,0.13,0.12,0.09,0.10]; print(repr(stats.ttest_rel(b,a).pvalue));
  //   print(repr(stats.binomtest(1,7,0.5).pvalue))"
  // -> 0.02377915522868361, 0.125 (the tie dropped: 6 wins of 7)
  REQUIRE(c.t_p);
  CHECK(*c.t_p == Approx(0.02377915522868361).epsilon(1e-9));
  REQUIRE(c.sign_p);
  CHECK(*c.sign_p == Approx(0.125).epsilon(1e-12));
}

TEST_CASE("paired comparison: more sign tests and a t test against scipy") {
  // /usr/bin/python3 -c "from scipy import stats; print(repr(stats.binomtest(6,20,0.5).pvalue),
  //   repr(stats.binomtest(10,20,0.5).pvalue), repr(stats.binomtest(0,3,0.5).pvalue))"
  // -> 0.11531829833984375 1.0 0.25
  auto with_wins = [](int wins, int n) {
    std::vector<double> a(n, 1.0), b(n, 2.0);
    for (int i = 0; i < wins; ++i) b[i] = 0.5 - 0.01 * i;
    return compare_paired(a, b);
  };
  CHECK(*with_wins(6, 20).sign_p == Approx(0.11531829833984375).epsilon(1e-12));
  CHECK(*with_wins(14, 20).sign_p == Approx(0.11531829833984375).epsilon(1e-12));
  CHECK(*with_wins(10, 20).sign_p == Approx(1.0).epsilon(1e-12));
  CHECK(*with_wins(0, 3).sign_p == Approx(0.25).epsilon(1e-12));
  // /usr/bin/python3 -c "from scipy import stats;
  //   print(repr(stats.ttest_rel([1.5,2.1,3.9],[1.0,2.0,3.0]).pvalue))" -> 0.16278164172107853
  const auto c = compare_paired({1.0, 2.0, 3.0}, {1.5, 2.1, 3.9});
  CHECK(c.losses == 3);
  CHECK(*c.t_p == Approx(0.16278164172107853).epsilon(1e-9));
}

TEST_CASE("paired comparison: no p-value where the test is undefined") {
  const auto none = compare_paired({}, {});
  CHECK(none.pairs == 0);
  CHECK_FALSE(none.sign_p);
  CHECK_FALSE(none.t_p);
  const auto one = compare_paired({1.0}, {0.5});
  CHECK(one.wins == 1);
  CHECK_FALSE(one.t_p);                     // one pair: no variance
  CHECK(*one.sign_p == Approx(1.0));        // binomtest(1, 1): 1.0
  const auto ties = compare_paired({1.0, 2.0}, {1.0, 2.0});
  CHECK(ties.ties == 2);
  CHECK_FALSE(ties.sign_p);                 // every pair tied: nothing to test
  CHECK_FALSE(ties.t_p);
  const auto constant = compare_paired({0.1, 0.2, 0.3}, {0.2, 0.3, 0.4});
  CHECK_FALSE(constant.t_p);                // identical differences: zero variance
}
