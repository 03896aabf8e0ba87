// OptionTable: each parameter written once, as a binding of an options member whose initialiser
// is the default (radial/core/option_table.hpp).
#include <catch2/catch.hpp>

#include "radial/core/errors.hpp"
#include "radial/core/option_table.hpp"

using namespace radial;

namespace {

enum class Kind { Plain, Fancy };

struct Inner {
  double floor = 1e-6;
};

struct Outer {
  std::size_t count = 4;
  std::string mode = "pooled";
  Kind kind = Kind::Fancy;
  bool flag = true;
  Inner inner;
};

OptionTable<Outer> table(Outer defaults = {}) {
  OptionTable<Inner> inner;
  inner.bind("floor", &Inner::floor, "a floor").above(0.0);
  inner.check([](Inner& i) {
    if (i.floor > 1) throw ParameterError("floor > 1");
  });
  OptionTable<Outer> t(defaults);
  t.bind("count", &Outer::count, "how many").at_least(1);
  t.choice("mode", &Outer::mode, {"pooled", "per-class"}, "which");
  t.choice("kind", &Outer::kind, {{"plain", Kind::Plain}, {"fancy", Kind::Fancy}}, "what kind");
  t.bind("flag", &Outer::flag, "a flag");
  t.include(&Outer::inner, inner);
  return t;
}

}  // namespace

TEST_CASE("option table: defaults come from the options struct") {
  const ParamTable params = table().params();
  REQUIRE(params.size() == 5);
  CHECK(check_param_table(params).empty());
  CHECK(std::get<std::int64_t>(params[0].default_value) == 4);
  CHECK(params[0].type == ParamType::Integer);
  CHECK(params[0].min == 1.0);
  CHECK(std::get<std::string>(params[1].default_value) == "pooled");
  CHECK(params[1].type == ParamType::Choice);
  CHECK(std::get<std::string>(params[2].default_value) == "fancy");
  CHECK(params[2].choices == std::vector<std::string>{"plain", "fancy"});
  CHECK(std::get<bool>(params[3].default_value) == true);
  CHECK(std::get<double>(params[4].default_value) == 1e-6);
  // Other defaults, other declared defaults: the table states what the struct holds.
  Outer other;
  other.count = 9;
  other.inner.floor = 0.5;
  const ParamTable changed = table(other).params();
  CHECK(std::get<std::int64_t>(changed[0].default_value) == 9);
  CHECK(std::get<double>(changed[4].default_value) == 0.5);
}

TEST_CASE("option table: the reader is the bindings") {
  const OptionTable<Outer> t = table();
  const Params given = validate_params(
      t.params(), {{"count", std::int64_t(7)}, {"kind", std::string("plain")}, {"floor", 0.25}},
      "test");
  const Outer o = t.read(given);
  CHECK(o.count == 7);
  CHECK(o.mode == "pooled");
  CHECK(o.kind == Kind::Plain);
  CHECK(o.flag);
  CHECK(o.inner.floor == 0.25);
  const Params bad = validate_params(t.params(), {{"floor", 2.0}}, "test");
  CHECK_THROWS_AS(t.read(bad), ParameterError);  // the included table's check runs
}
