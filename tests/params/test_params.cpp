// Parameter tables: constraint messages, ranges, choices, coercion, validation and "did you mean".
// Expected strings are the formats documented in radial/core/params.hpp (Ceres' "x = v. Violated
// constraint: x >= y").
#include <cmath>
#include <limits>
#include <string>

#include <catch2/catch.hpp>
#include <radial/core/errors.hpp>
#include <radial/core/params.hpp>

using Catch::Matchers::Contains;
using radial::ParamSpec;
using radial::ParamValue;

namespace {

radial::ParamTable kmeans_like() {
  return {
      ParamSpec::integer("count", 8, "number of centres M").at_least(1),
      ParamSpec::real("tolerance", 1e-6, "relative change that stops the iterations").above(0),
      ParamSpec::real("fraction", 0.5, "share of the data used").above(0).at_most(1),
      ParamSpec::choice("init", "kmeans++", {"kmeans++", "random"}, "how centres start"),
      ParamSpec::boolean("verbose", false, "print progress"),
      ParamSpec::path("warm-start", "", "centres to start from"),
      ParamSpec::string("label", "run", "a name for reports"),
  };
}

}  // namespace

TEST_CASE("range checks name the parameter, the value and the violated constraint") {
  const auto count = ParamSpec::integer("count", 8, "number of centres").at_least(1);
  CHECK(count.check(ParamValue{std::int64_t{0}}) == "count = 0. Violated constraint: count >= 1");
  CHECK(count.check(ParamValue{std::int64_t{1}}).empty());
  CHECK(count.check(ParamValue{std::int64_t{1000000}}).empty());

  const auto alpha = ParamSpec::real("alpha", 0.01, "weight decay").above(0);
  CHECK(alpha.check(ParamValue{0.0}) == "alpha = 0.0. Violated constraint: alpha > 0");
  CHECK(alpha.check(ParamValue{-0.25}) == "alpha = -0.25. Violated constraint: alpha > 0");
  CHECK(alpha.check(ParamValue{1e-300}).empty());

  const auto fraction = ParamSpec::real("fraction", 0.5, "share").at_least(0.25).at_most(1);
  CHECK(fraction.check(ParamValue{1.5}) == "fraction = 1.5. Violated constraint: fraction <= 1");
  CHECK(fraction.check(ParamValue{0.1}) ==
        "fraction = 0.1. Violated constraint: fraction >= 0.25");
  CHECK(fraction.check(ParamValue{1.0}).empty());   // bounds are inclusive
  CHECK(fraction.check(ParamValue{0.25}).empty());
}

TEST_CASE("an exclusive upper bound: below()") {
  const auto rcond = ParamSpec::real("rcond", -1.0, "cut-off").below(1);
  CHECK(rcond.check(ParamValue{1.0}) == "rcond = 1.0. Violated constraint: rcond < 1");
  CHECK(rcond.check(ParamValue{2.5}) == "rcond = 2.5. Violated constraint: rcond < 1");
  CHECK(rcond.check(ParamValue{std::nextafter(1.0, 0.0)}).empty());
  CHECK(rcond.describe_constraint() == "real < 1");
  // at_most after below() makes the bound inclusive again.
  auto again = rcond;
  again.at_most(1);
  CHECK(again.check(ParamValue{1.0}).empty());
}

TEST_CASE("check_params: every problem with its kind, name and the message validate_params uses") {
  using Kind = radial::ParamProblem::Kind;
  radial::ParamTable table = kmeans_like();
  table.push_back(ParamSpec::path("file", "", "centres file").make_required());
  const auto problems = radial::check_params(
      table, {{"cuont", std::int64_t{3}}, {"count", std::int64_t{0}}, {"xyzzy", true}});
  REQUIRE(problems.size() == 4);
  CHECK(problems[0].kind == Kind::Unknown);
  CHECK(problems[0].name == "cuont");
  CHECK(problems[0].guess == "count");
  CHECK(problems[0].message == "unknown parameter 'cuont' (did you mean 'count'?)");
  CHECK(problems[1].kind == Kind::Unknown);
  CHECK(problems[1].guess.empty());
  CHECK_THAT(problems[1].message, Contains("its parameters are count, tolerance"));
  CHECK(problems[2].kind == Kind::Invalid);
  CHECK(problems[2].name == "count");
  CHECK(problems[2].message == "count = 0. Violated constraint: count >= 1");
  CHECK(problems[3].kind == Kind::Missing);
  CHECK(problems[3].name == "file");
  CHECK(radial::check_params(table, {{"file", std::string("c.csv")}}).empty());
}

TEST_CASE("check_param_table: what is wrong with a table itself") {
  CHECK(radial::check_param_table(kmeans_like()).empty());
  const radial::ParamTable bad = {
      ParamSpec::integer("count", 0, "centres").at_least(1),     // default fails its check
      ParamSpec::integer("count", 8, "again"),                   // declared twice
      ParamSpec::real("x", 0.5, "").at_least(2).at_most(1),      // no doc, min > max
      ParamSpec::choice("init", "a", {}, "no choices"),
  };
  const auto problems = radial::check_param_table(bad);
  const auto has = [&](const std::string& text) {
    for (const auto& p : problems)
      if (p.find(text) != std::string::npos) return true;
    return false;
  };
  CHECK(has("parameter 'count': its default fails its own check: count = 0"));
  CHECK(has("parameter 'count' is declared twice"));
  CHECK(has("parameter 'x' has an empty doc"));
  CHECK(has("parameter 'x' has min > max"));
  CHECK(has("parameter 'init' is a choice with no choices"));
}

TEST_CASE("types: integers widen to reals, nothing else converts") {
  const auto width = ParamSpec::real("width", 1.0, "basis width").above(0);
  CHECK(width.check(ParamValue{std::int64_t{2}}).empty());
  const ParamValue coerced = width.coerce(ParamValue{std::int64_t{2}});
  REQUIRE(std::holds_alternative<double>(coerced));
  CHECK(std::get<double>(coerced) == 2.0);
  // Range checks apply to the widened value.
  CHECK(width.check(ParamValue{std::int64_t{0}}) == "width = 0. Violated constraint: width > 0");

  const auto count = ParamSpec::integer("count", 8, "centres");
  CHECK(count.check(ParamValue{2.0}) ==
        "count = 2.0 (a real). Violated constraint: count is an integer");
  CHECK_THAT(count.check(ParamValue{std::string("8")}), Contains("is an integer"));
  CHECK(std::get<std::int64_t>(count.coerce(ParamValue{std::int64_t{3}})) == 3);

  CHECK_THAT(width.check(ParamValue{true}),
             Contains("width = true (a boolean)") && Contains("width is a real number"));
  CHECK(width.check(ParamValue{std::nan("")}) ==
        "width = nan. Violated constraint: width is finite");
  CHECK(width.check(ParamValue{std::numeric_limits<double>::infinity()}) ==
        "width = inf. Violated constraint: width is finite");

  const auto verbose = ParamSpec::boolean("verbose", false, "progress");
  CHECK(verbose.check(ParamValue{true}).empty());
  CHECK_THAT(verbose.check(ParamValue{std::int64_t{1}}), Contains("verbose is a boolean"));

  const auto label = ParamSpec::string("label", "", "name");
  CHECK(label.check(ParamValue{std::string("anything")}).empty());
  CHECK_THAT(label.check(ParamValue{1.5}), Contains("label is a string"));
}

TEST_CASE("choices are checked and near misses get a suggestion") {
  const auto init = ParamSpec::choice("init", "kmeans++", {"kmeans++", "random"}, "start");
  CHECK(init.check(ParamValue{std::string("random")}).empty());
  CHECK(init.check(ParamValue{std::string("randon")}) ==
        "init = \"randon\". Violated constraint: init is one of kmeans++, random "
        "(did you mean \"random\"?)");
  CHECK(init.check(ParamValue{std::string("spectral")}) ==
        "init = \"spectral\". Violated constraint: init is one of kmeans++, random");
  CHECK_THAT(init.check(ParamValue{std::int64_t{1}}), Contains("init is one of kmeans++, random"));
}

TEST_CASE("constraints in words, for help text") {
  const auto table = kmeans_like();
  CHECK(table[0].describe_constraint() == "integer >= 1");
  CHECK(table[1].describe_constraint() == "real > 0");
  CHECK(table[2].describe_constraint() == "real > 0 and <= 1");
  CHECK(table[3].describe_constraint() == "one of kmeans++, random");
  CHECK(table[4].describe_constraint() == "boolean");
  CHECK(table[5].describe_constraint() == "path");
  CHECK(table[6].describe_constraint() == "string");
  CHECK(ParamSpec::real("x", 0, "").describe_constraint() == "real");
  CHECK(ParamSpec::real("x", 0, "").at_least(0.5).describe_constraint() == "real >= 0.5");
}

TEST_CASE("values print as they would be written in a pipeline") {
  CHECK(radial::to_string(ParamValue{std::int64_t{-3}}) == "-3");
  CHECK(radial::to_string(ParamValue{0.1}) == "0.1");
  CHECK(radial::to_string(ParamValue{1e-3}) == "0.001");
  CHECK(radial::to_string(ParamValue{2.0}) == "2.0");
  CHECK(radial::to_string(ParamValue{1e300}) == "1e+300");
  CHECK(radial::to_string(ParamValue{1.0 / 3.0}) == "0.3333333333333333");
  CHECK(radial::to_string(ParamValue{false}) == "false");
  CHECK(radial::to_string(ParamValue{std::string("kmeans++")}) == "\"kmeans++\"");
  CHECK(std::string(radial::to_string(radial::ParamType::Choice)) == "choice");
  CHECK(std::string(radial::to_string(radial::ParamType::Integer)) == "integer");
}

TEST_CASE("validate_params fills defaults, coerces, and keeps given values") {
  const auto table = kmeans_like();
  const auto params = radial::validate_params(
      table, {{"count", std::int64_t{12}}, {"tolerance", std::int64_t{1}}}, "plugin kmeans");
  CHECK(params.integer("count") == 12);
  CHECK(std::holds_alternative<double>(params.values().at("tolerance")));
  CHECK(params.real("tolerance") == 1.0);
  CHECK(params.real("fraction") == 0.5);
  CHECK(params.string("init") == "kmeans++");
  CHECK(params.boolean("verbose") == false);
  CHECK(params.string("warm-start").empty());
  CHECK(params.string("label") == "run");
  CHECK(params.values().size() == table.size());
  CHECK(radial::find_param(table, "init") == &table[3]);
  CHECK(radial::find_param(table, "inti") == nullptr);
}

TEST_CASE("validate_params refuses unknown names with a suggestion, naming where") {
  const auto table = kmeans_like();
  CHECK_THROWS_MATCHES(
      radial::validate_params(table, {{"cuont", std::int64_t{3}}}, "plugin kmeans"),
      radial::ParameterError,
      Catch::Matchers::Message(
          "plugin kmeans: unknown parameter 'cuont' (did you mean 'count'?)"));
  CHECK_THROWS_WITH(radial::validate_params(table, {{"seed", std::int64_t{3}}}, "plugin kmeans"),
                    Contains("unknown parameter 'seed'") &&
                        Contains("its parameters are count, tolerance, fraction, init, verbose, "
                                 "warm-start, label"));
  CHECK_THROWS_WITH(radial::validate_params({}, {{"alpha", 0.5}}, "plugin thin-plate"),
                    Contains("this component takes no parameters"));
}

TEST_CASE("validate_params refuses values out of range and reports every problem at once") {
  const auto table = kmeans_like();
  CHECK_THROWS_MATCHES(
      radial::validate_params(table, {{"count", std::int64_t{0}}}, "plugin kmeans"),
      radial::ParameterError,
      Catch::Matchers::Message("plugin kmeans: count = 0. Violated constraint: count >= 1"));
  CHECK_THROWS_WITH(
      radial::validate_params(
          table, {{"count", std::int64_t{0}}, {"init", std::string("random")}, {"fraction", 2.0}},
          "plugin kmeans"),
      Contains("plugin kmeans: 2 parameter problems:") &&
          Contains("\n  count = 0. Violated constraint: count >= 1") &&
          Contains("\n  fraction = 2.0. Violated constraint: fraction <= 1"));
}

TEST_CASE("required parameters must be given") {
  radial::ParamTable table = {
      ParamSpec::path("centres-file", "", "file with the centres").make_required(),
      ParamSpec::integer("count", 8, "centres").at_least(1)};
  CHECK_THROWS_WITH(radial::validate_params(table, {}, "plugin fixed"),
                    Contains("plugin fixed: missing required parameter 'centres-file'") &&
                        Contains("file with the centres"));
  const auto params = radial::validate_params(
      table, {{"centres-file", std::string("/tmp/c.csv")}}, "plugin fixed");
  CHECK(params.string("centres-file") == "/tmp/c.csv");
}

TEST_CASE("Params getters name the parameter when the type or the name is wrong") {
  const radial::Params params({{"count", std::int64_t{3}}, {"init", std::string("random")}});
  CHECK(params.real("count") == 3.0);  // integers widen, as in check()
  CHECK_THROWS_MATCHES(params.integer("init"), radial::ParameterError,
                       Catch::Matchers::Message(
                           "parameter 'init' = \"random\" is a string, not an integer (the "
                           "component reads it with the wrong getter or its table declares "
                           "another type)"));
  CHECK_THROWS_WITH(params.boolean("count"), Contains("parameter 'count' = 3 is an integer"));
  CHECK_THROWS_WITH(params.string("count"), Contains("parameter 'count'"));
  CHECK_THROWS_AS(params.real("init"), radial::ParameterError);
  CHECK_THROWS_WITH(params.integer("cout"), Contains("parameter 'cout' is not set") &&
                                                Contains("did you mean 'count'?"));
  CHECK_THROWS_WITH(radial::Params().real("alpha"), Contains("no parameters are set"));
}

TEST_CASE("did_you_mean: the nearest candidate by edit distance, within a typo's reach") {
  const std::vector<std::string> slots = {"basis", "centres", "output", "weight-penalty"};
  CHECK(radial::did_you_mean("centers", slots) == "centres");      // transposition
  CHECK(radial::did_you_mean("bassis", slots) == "basis");         // insertion
  CHECK(radial::did_you_mean("weight-penality", slots) == "weight-penalty");
  CHECK(radial::did_you_mean("OUTPUT", slots) == "output");        // case is not a typo
  CHECK(radial::did_you_mean("data", slots).empty());              // a different word
  CHECK(radial::did_you_mean("x", {"seed", "name"}).empty());
  CHECK(radial::did_you_mean("", slots).empty());
  CHECK(radial::did_you_mean("count", {}).empty());
  CHECK(radial::did_you_mean("gauss", {"thin-plate", "gaussian"}) == "gaussian");  // prefix

  // An adjacent transposition costs one edit (Damerau), so "bacd" is nearer to "abcd" than
  // "abxy" (two substitutions); plain Levenshtein would tie them at 2 and keep the first.
  CHECK(radial::did_you_mean("abcd", {"abxy", "bacd"}) == "bacd");
  // Ties keep the candidates' order.
  CHECK(radial::did_you_mean("widt", {"width", "wide"}) == "width");
  // Threshold: about one edit per three characters.
  CHECK(radial::did_you_mean("kmenas", {"kmeans", "gmm"}) == "kmeans");
  CHECK(radial::did_you_mean("kmxxns", {"kmeans"}) == "kmeans");    // 2 edits in 6: a typo
  CHECK(radial::did_you_mean("kxxxns", {"kmeans"}).empty());        // 3 edits in 6: not
}
