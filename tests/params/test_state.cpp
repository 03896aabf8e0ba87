// Typed look-ups in a component State: a missing or mistyped entry is a ModelFileError naming
// the entry and the component.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/core/errors.hpp>
#include <radial/core/state.hpp>

using Catch::Matchers::Contains;

TEST_CASE("state_get returns entries of the asked type") {
  radial::State state;
  state["count"] = std::int64_t{5};
  state["width"] = 0.5;
  state["kind"] = std::string("spherical");
  state["widths"] = radial::Vector{1.0, 2.0};
  state["means"] = radial::Matrix{{1.0, 2.0}, {3.0, 4.0}};
  state["covariances"] = radial::Tensor3(std::array<std::size_t, 3>{2, 2, 2}, 1.0);

  CHECK(radial::state_get<std::int64_t>(state, "count", "gaussian") == 5);
  CHECK(radial::state_get<double>(state, "width", "gaussian") == 0.5);
  CHECK(radial::state_get<std::string>(state, "kind", "gaussian") == "spherical");
  CHECK(radial::state_get<radial::Vector>(state, "widths", "gaussian")(1) == 2.0);
  CHECK(radial::state_get<radial::Matrix>(state, "means", "gaussian")(1, 0) == 3.0);
  CHECK(radial::state_get<radial::Tensor3>(state, "covariances", "gaussian").size() == 8);
  // A reference into the state, not a copy.
  CHECK(&radial::state_get<double>(state, "width", "gaussian") ==
        &std::get<double>(state["width"]));
}

TEST_CASE("state_get refuses missing and mistyped entries with a ModelFileError") {
  radial::State state;
  state["width"] = 0.5;
  CHECK_THROWS_MATCHES(radial::state_get<double>(state, "widht", "basis gaussian"),
                       radial::ModelFileError,
                       Catch::Matchers::Predicate<radial::ModelFileError>(
                           [](const radial::ModelFileError& e) {
                             const std::string m = e.what();
                             return m.find("basis gaussian: state entry 'widht' is missing") == 0 &&
                                    m.find("present: width") != std::string::npos;
                           },
                           "names the component, the missing key and what is present"));
  CHECK_THROWS_WITH(radial::state_get<radial::Matrix>(state, "width", "basis gaussian"),
                    Contains("state entry 'width' is a real where a matrix was expected"));
  CHECK_THROWS_WITH(radial::state_get<std::int64_t>(radial::State{}, "count", "kmeans"),
                    Contains("present: none"));
}

TEST_CASE("state_param checks a saved parameter against the spec that declared it") {
  const radial::ParamSpec c =
      radial::ParamSpec::real("c", 1.0, "shape parameter").above(0.0).at_most(1e100);
  CHECK(radial::state_param({{"c", 2.5}}, c, "basis multiquadric") == 2.5);
  CHECK(radial::state_param({{"c", 1e100}}, c, "basis multiquadric") == 1e100);
  // Out of range, not finite, missing, mistyped: a ModelFileError naming the entry and the
  // constraint the table states.
  CHECK_THROWS_WITH(radial::state_param({{"c", 0.0}}, c, "basis multiquadric"),
                    Contains("basis multiquadric: state entry 'c': c = 0") &&
                        Contains("Violated constraint: c > 0"));
  CHECK_THROWS_WITH(radial::state_param({{"c", 1e300}}, c, "basis multiquadric"),
                    Contains("Violated constraint: c <= "));
  CHECK_THROWS_AS(radial::state_param({{"c", std::nan("")}}, c, "basis multiquadric"),
                  radial::ModelFileError);
  CHECK_THROWS_AS(radial::state_param({}, c, "basis multiquadric"), radial::ModelFileError);
  CHECK_THROWS_AS(radial::state_param({{"c", std::int64_t{2}}}, c, "basis multiquadric"),
                  radial::ModelFileError);
}
