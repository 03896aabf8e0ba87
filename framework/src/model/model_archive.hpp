#pragma once
// Boost.Serialization of the model's value types, for the model store only (model_store.cpp is
// the one translation unit that includes this). Plugins never see it: the model format is the framework's, so a plugin cannot break it.
//
// Every saved type carries a version: BOOST_CLASS_VERSION below, written by Boost with the first
// object of each type and checked on load (a record newer than this build is refused). Arrays
// save their rank and shape and are checked against them on load. Doubles are written by Boost
// with max_digits10 significant digits, which round-trips every finite double bit-exactly;
// text archives cannot read inf and nan back, so those are saved as a tagged list beside the
// finite values.
//
// Every count and shape read here is checked against the bytes the archive still holds
// (remaining_bytes: BoundedTextIArchive knows them) before anything is allocated, so a crafted
// file cannot make the reader allocate what it claims (docs/model-files.md).
//
// Loading throws ArchiveInconsistency (a message without the file name); the model store adds
// the file name and turns it into a ModelFileError.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <boost/serialization/map.hpp>
#include <boost/serialization/split_free.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/utility.hpp>
#include <boost/serialization/version.hpp>

#include "radial/model/model.hpp"
#include "radial/network/prediction_rule.hpp"

namespace radial::model_archive {

// Current record versions. Bump one when its layout changes and keep reading the old layout.
inline constexpr unsigned array_version = 1;
inline constexpr unsigned variant_version = 1;
inline constexpr unsigned standardiser_version = 1;
inline constexpr unsigned centres_version = 1;
// model 2: the link is stored by name (links are open); model 1 stored the closed enum's number
// and no weights for bayes, which are made from the centres on load (legacy_link below).
// model 3: text class labels (class_names) after the training summary; earlier models have none.
// model 4: the coding of nominal inputs (Model::input_coding) after the class names.
// model 5: the imputation values of missing inputs (Model::imputation) after the coding.
// model 6: Model::missing_em after the imputation.
// model 7: Model::input_model after missing_em; earlier models have none (a Gaussian activation
// then keeps the distance over the observed inputs).
inline constexpr unsigned model_version = 7;

// Largest extent accepted for an empty array beyond what the remaining bytes could hold.
inline constexpr std::uint64_t max_empty_extent = std::uint64_t(1) << 20;
// Caps on collections whose entries cost far more memory than their few bytes of text (a
// map node or a std::string per 2-10 characters), so that a crafted file's memory stays within
// a small multiple of its size. Real models hold a few dozen map entries (parameters, state,
// plugin versions) and one feature name per input column.
inline constexpr std::uint64_t max_map_entries = std::uint64_t(1) << 16;
inline constexpr std::uint64_t max_feature_names = std::uint64_t(1) << 20;

class ArchiveInconsistency : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void check_record_version(const char* record, unsigned found, unsigned supported) {
  if (found > supported)
    throw ArchiveInconsistency(std::string(record) + " record has version " +
                               std::to_string(found) + ", this build reads up to " +
                               std::to_string(supported) + " (written by a newer Radial)");
}

// A double through a text archive: finite values as Boost writes them (exact), inf and nan as
// a kind code, because text archives cannot read them back.
enum class RealKind : int { Finite = 0, PlusInf = 1, MinusInf = 2, NaN = 3 };

inline RealKind real_kind(double x) {
  if (std::isnan(x)) return RealKind::NaN;
  if (std::isinf(x)) return x > 0 ? RealKind::PlusInf : RealKind::MinusInf;
  return RealKind::Finite;
}

inline double real_from_kind(int kind) {
  switch (kind) {
    case int(RealKind::PlusInf): return std::numeric_limits<double>::infinity();
    case int(RealKind::MinusInf): return -std::numeric_limits<double>::infinity();
    case int(RealKind::NaN): return std::numeric_limits<double>::quiet_NaN();
    default:
      throw ArchiveInconsistency("unknown special real code " + std::to_string(kind));
  }
}

template <class Ar>
void save_real(Ar& ar, double x) {
  const int kind = int(real_kind(x));
  ar << kind;
  if (kind == int(RealKind::Finite)) ar << x;
}

template <class Ar>
double load_real(Ar& ar) {
  int kind = 0;
  ar >> kind;
  if (kind != int(RealKind::Finite)) return real_from_kind(kind);
  double x = 0;
  ar >> x;
  return x;
}

// Scalars of a variant or a map: doubles through save_real, the rest as Boost writes them.
template <class Ar, class T>
void save_value(Ar& ar, const T& value) {
  if constexpr (std::is_same_v<T, double>)
    save_real(ar, value);
  else
    ar << value;
}

template <class Ar, class T>
void load_value(Ar& ar, T& value) {
  if constexpr (std::is_same_v<T, double>)
    value = load_real(ar);
  else
    ar >> value;
}

// Bytes the archive can still supply. The model store reads through BoundedTextIArchive,
// which knows; a plain Boost archive (white-box tests) does not, and is unbounded here.
template <class Ar, class = void>
struct knows_remaining : std::false_type {};
template <class Ar>
struct knows_remaining<Ar, std::void_t<decltype(std::declval<const Ar&>().remaining())>>
    : std::true_type {};

template <class Ar>
std::uint64_t remaining_bytes(const Ar& ar) {
  if constexpr (knows_remaining<Ar>::value)
    return ar.remaining();
  else
    return std::numeric_limits<std::uint64_t>::max();
}

// Refuses `count` items of at least `min_bytes` characters each when the rest of the archive
// cannot hold them, so a crafted count never turns into an allocation.
template <class Ar>
void check_count(const Ar& ar, std::uint64_t count, std::uint64_t min_bytes, const std::string& what) {
  const std::uint64_t left = remaining_bytes(ar);
  if (count > left / min_bytes)
    throw ArchiveInconsistency(what + " claims " + std::to_string(count) + " entries, but only " +
                               std::to_string(left) + " bytes remain");
}

// A count read from the archive, checked before anything is allocated for it.
template <class Ar>
std::uint64_t load_count(Ar& ar, const std::string& what) {
  std::uint64_t count = 0;
  ar >> count;
  check_count(ar, count, 2, what);  // every entry takes at least two characters ("0 ")
  return count;
}

template <class Ar>
void save_strings(Ar& ar, const std::vector<std::string>& strings) {
  ar << std::uint64_t(strings.size());
  for (const auto& s : strings) ar << s;
}

template <class Ar>
void load_strings(Ar& ar, std::vector<std::string>& strings, const char* what,
                  std::uint64_t max_count) {
  const std::uint64_t count = load_count(ar, what);
  if (count > max_count)
    throw ArchiveInconsistency(std::string(what) + " claims " + std::to_string(count) +
                               " entries, more than the " + std::to_string(max_count) +
                               " a model may hold");
  strings.clear();
  // Grow as entries arrive: a wrong count runs into the end of the archive, not into memory.
  for (std::uint64_t i = 0; i < count; ++i) {
    std::string s;
    ar >> s;
    strings.push_back(std::move(s));
  }
  if (strings.size() != count)
    throw ArchiveInconsistency(std::string(what) + ": expected " + std::to_string(count) +
                               " strings");
}

template <class Ar>
void save_reals(Ar& ar, const std::vector<double>& values) {
  ar << std::uint64_t(values.size());
  for (double v : values) save_real(ar, v);
}

template <class Ar>
void load_reals(Ar& ar, std::vector<double>& values, const char* what) {
  const std::uint64_t count = load_count(ar, what);
  values.clear();
  for (std::uint64_t i = 0; i < count; ++i) values.push_back(load_real(ar));
}

template <class E>
E enum_from_int(int value, int last, const char* what) {
  if (value < 0 || value > last)
    throw ArchiveInconsistency(std::string(what) + " has the unknown value " +
                               std::to_string(value));
  return E(value);
}

// The link of a version-1 model: the number of the enum it was written with (identity,
// logistic, softmax, bayes).
inline radial::Link legacy_link(int value) {
  static const char* const names[] = {"identity", "logistic", "softmax", "bayes"};
  if (value < 0 || value > 3)
    throw ArchiveInconsistency("output link has the unknown value " + std::to_string(value));
  return radial::Link(names[value]);
}

// A version-1 bayes model kept no weights: its posterior was computed from the centres' mixing
// weights and class priors, from which the weights the bayes rule reads are made here. Centres
// without them are left for the consistency check to refuse.
inline void complete_legacy_bayes(radial::Model& m) {
  if (m.link != radial::Link::Bayes || m.weights.size() != 0) return;
  const radial::Centres& c = m.centres;
  if (!c.has_mixing() || c.mixing.shape(0) != c.count() ||
      c.class_priors.size() != c.mixing.shape(1))
    return;
  m.weights = radial::mixture_posterior_weights(c);
}

}  // namespace radial::model_archive

namespace boost::serialization {

// ---- xtensor arrays: rank, shape, values; doubles with a list of non-finite entries ----

template <class Ar, class T, std::size_t N>
void save(Ar& ar, const xt::xtensor<T, N>& a, const unsigned int /*version*/) {
  ar << std::uint32_t(N);
  for (std::size_t axis = 0; axis < N; ++axis) ar << std::uint64_t(a.shape(axis));
  const std::size_t size = a.size();
  const T* data = a.data();
  if constexpr (std::is_same_v<T, double>) {
    using radial::model_archive::RealKind;
    std::vector<std::pair<std::uint64_t, int>> special;
    for (std::size_t i = 0; i < size; ++i) {
      const RealKind kind = radial::model_archive::real_kind(data[i]);
      const double finite = kind == RealKind::Finite ? data[i] : 0.0;
      ar << finite;
      if (kind != RealKind::Finite) special.emplace_back(i, int(kind));
    }
    ar << std::uint64_t(special.size());
    for (const auto& [index, kind] : special) ar << index << kind;
  } else {
    for (std::size_t i = 0; i < size; ++i) ar << data[i];
  }
}

template <class Ar, class T, std::size_t N>
void load(Ar& ar, xt::xtensor<T, N>& a, const unsigned int version) {
  using radial::model_archive::ArchiveInconsistency;
  radial::model_archive::check_record_version("array", version,
                                              radial::model_archive::array_version);
  std::uint32_t rank = 0;
  ar >> rank;
  if (rank != N)
    throw ArchiveInconsistency("array of rank " + std::to_string(rank) + " where rank " +
                               std::to_string(N) + " was expected");
  std::array<std::size_t, N> shape{};
  std::uint64_t size = 1;
  std::string shape_text;
  for (std::size_t axis = 0; axis < N; ++axis) {
    std::uint64_t extent = 0;
    ar >> extent;
    shape[axis] = std::size_t(extent);
    shape_text += (axis ? " x " : "") + std::to_string(extent);
    if (extent != 0 && size > std::numeric_limits<std::uint64_t>::max() / extent)
      throw ArchiveInconsistency("array shape " + shape_text + " overflows");
    size *= extent;
  }
  // Every value takes at least two characters ("0 "): a shape the rest of the archive cannot
  // hold is refused before anything is allocated. An empty array has no values to bound its
  // extents, which are kept to what any real model needs.
  radial::model_archive::check_count(ar, size, 2, "array of shape " + shape_text);
  if (size == 0)
    for (std::size_t axis = 0; axis < N; ++axis)
      if (shape[axis] > radial::model_archive::max_empty_extent &&
          shape[axis] > radial::model_archive::remaining_bytes(ar))
        throw ArchiveInconsistency("empty array of shape " + shape_text +
                                   " has an implausible extent");
  // A bounded archive has vouched for the shape, so values go straight into the array. An
  // archive that cannot tell the bytes left reads them first, so that a wrong shape fails at
  // the end of the archive instead of allocating what the shape claims.
  constexpr bool bounded = radial::model_archive::knows_remaining<Ar>::value;
  xt::xtensor<T, N> out;
  std::vector<T> values;
  if constexpr (bounded) {
    out = xt::xtensor<T, N>::from_shape(shape);
    for (std::uint64_t i = 0; i < size; ++i) ar >> out.data()[i];
  } else {
    values.reserve(std::size_t(std::min<std::uint64_t>(size, std::uint64_t(1) << 16)));
    for (std::uint64_t i = 0; i < size; ++i) {
      T value{};
      ar >> value;
      values.push_back(value);
    }
  }
  T* const data = bounded ? out.data() : values.data();
  if constexpr (std::is_same_v<T, double>) {
    std::uint64_t specials = 0;
    ar >> specials;
    radial::model_archive::check_count(ar, specials, 4, "non-finite entry list");
    if (specials > size)
      throw ArchiveInconsistency("array of shape " + shape_text + " lists " +
                                 std::to_string(specials) + " non-finite entries");
    for (std::uint64_t s = 0; s < specials; ++s) {
      std::uint64_t index = 0;
      int kind = 0;
      ar >> index >> kind;
      if (index >= size)
        throw ArchiveInconsistency("non-finite entry " + std::to_string(index) +
                                   " outside an array of shape " + shape_text);
      data[std::size_t(index)] = radial::model_archive::real_from_kind(kind);
    }
  }
  if constexpr (!bounded) {
    out = xt::xtensor<T, N>::from_shape(shape);
    std::copy(values.begin(), values.end(), out.data());
  }
  a = std::move(out);
}

template <class Ar, class T, std::size_t N>
void serialize(Ar& ar, xt::xtensor<T, N>& a, const unsigned int version) {
  split_free(ar, a, version);
}

// ---- std::variant (StateValue, ParamValue): alternative index, then the value ----

template <class Ar, class... Ts>
void save(Ar& ar, const std::variant<Ts...>& v, const unsigned int /*version*/) {
  if (v.valueless_by_exception())
    throw radial::model_archive::ArchiveInconsistency("cannot save a valueless variant");
  ar << std::uint32_t(v.index());
  std::visit([&ar](const auto& value) { radial::model_archive::save_value(ar, value); }, v);
}

template <class Ar, class V, std::size_t I = 0>
void load_alternative(Ar& ar, V& v, std::size_t index) {
  if constexpr (I < std::variant_size_v<V>) {
    if (index == I) {
      std::variant_alternative_t<I, V> value{};
      radial::model_archive::load_value(ar, value);
      v = std::move(value);
      return;
    }
    load_alternative<Ar, V, I + 1>(ar, v, index);
  }
}

template <class Ar, class... Ts>
void load(Ar& ar, std::variant<Ts...>& v, const unsigned int version) {
  radial::model_archive::check_record_version("value", version,
                                              radial::model_archive::variant_version);
  std::uint32_t index = 0;
  ar >> index;
  if (index >= sizeof...(Ts))
    throw radial::model_archive::ArchiveInconsistency(
        "value of alternative " + std::to_string(index) + ", this build knows " +
        std::to_string(sizeof...(Ts)));
  load_alternative(ar, v, index);
}

template <class Ar, class... Ts>
void serialize(Ar& ar, std::variant<Ts...>& v, const unsigned int version) {
  split_free(ar, v, version);
}

// ---- Standardiser ----

template <class Ar>
void save(Ar& ar, const radial::Standardiser& s, const unsigned int /*version*/) {
  ar << s.mean << s.scale;
}

template <class Ar>
void load(Ar& ar, radial::Standardiser& s, const unsigned int version) {
  radial::model_archive::check_record_version("standardiser", version,
                                              radial::model_archive::standardiser_version);
  ar >> s.mean >> s.scale;
}

// ---- Centres ----

template <class Ar>
void save(Ar& ar, const radial::Centres& c, const unsigned int /*version*/) {
  const int shape = int(c.shape);
  ar << c.means << shape << c.variances << c.diagonal << c.covariances << c.mixing << c.owner
     << c.class_priors;
}

template <class Ar>
void load(Ar& ar, radial::Centres& c, const unsigned int version) {
  using namespace radial::model_archive;
  check_record_version("centres", version, centres_version);
  int shape = 0;
  ar >> c.means >> shape;
  c.shape = enum_from_int<radial::Shape>(shape, int(radial::Shape::Full), "centre shape");
  ar >> c.variances >> c.diagonal >> c.covariances >> c.mixing >> c.owner >> c.class_priors;
}

// ---- Model ----

template <class Ar>
void save(Ar& ar, const radial::Model& m, const unsigned int /*version*/) {
  using namespace radial::model_archive;
  const int task = int(m.task);
  ar << task;
  save_strings(ar, m.feature_names);
  ar << m.target_name;
  save_reals(ar, m.class_values);
  ar << m.standardize << m.standardiser << m.centres << m.basis_id << m.basis_params
     << m.basis_state << m.output_id << m.link.name() << m.weights << m.pipeline_text
     << m.radial_version << m.plugin_versions << m.seed << m.training_summary;
  save_strings(ar, m.class_names);
  const radial::InputCoding& coding = m.input_coding;
  save_strings(ar, coding.raw_names);
  ar << std::uint64_t(coding.nominal.size());
  for (const radial::NominalInput& n : coding.nominal) {
    ar << std::uint64_t(n.column);
    save_strings(ar, n.categories);
  }
  ar << coding.unseen_as_zero;
  ar << m.imputation;
  ar << m.missing_em;
  ar << m.input_model;
}

template <class Ar>
void load(Ar& ar, radial::Model& m, const unsigned int version) {
  using namespace radial::model_archive;
  check_record_version("model", version, model_version);
  int task = 0;
  ar >> task;
  m.task = enum_from_int<radial::Task>(task, int(radial::Task::Regression), "task");
  load_strings(ar, m.feature_names, "feature names", max_feature_names);
  ar >> m.target_name;
  load_reals(ar, m.class_values, "class values");
  ar >> m.standardize >> m.standardiser >> m.centres >> m.basis_id >> m.basis_params >>
      m.basis_state >> m.output_id;
  if (version < 2) {
    int link = 0;
    ar >> link;
    m.link = legacy_link(link);
  } else {
    std::string link;
    ar >> link;
    if (link.empty()) throw ArchiveInconsistency("the output link has no name");
    m.link = radial::Link(std::move(link));
  }
  ar >> m.weights >> m.pipeline_text >> m.radial_version >> m.plugin_versions >> m.seed >>
      m.training_summary;
  if (version < 2) complete_legacy_bayes(m);
  m.class_names.clear();
  if (version >= 3) load_strings(ar, m.class_names, "class names", max_feature_names);
  m.input_coding = radial::InputCoding();
  if (version >= 4) {
    radial::InputCoding& coding = m.input_coding;
    load_strings(ar, coding.raw_names, "raw input names", max_feature_names);
    const std::uint64_t count = load_count(ar, "nominal inputs");
    if (count > coding.raw_names.size())
      throw ArchiveInconsistency("the model lists " + std::to_string(count) +
                                 " nominal inputs for " + std::to_string(coding.raw_names.size()) +
                                 " raw inputs");
    for (std::uint64_t k = 0; k < count; ++k) {
      radial::NominalInput n;
      std::uint64_t column = 0;
      ar >> column;
      n.column = std::size_t(column);
      load_strings(ar, n.categories, "categories", max_feature_names);
      coding.nominal.push_back(std::move(n));
    }
    ar >> coding.unseen_as_zero;
  }
  m.imputation = radial::Vector::from_shape({0});
  if (version >= 5) ar >> m.imputation;
  m.missing_em = false;
  if (version >= 6) ar >> m.missing_em;
  m.input_model = radial::Centres();
  if (version >= 7) ar >> m.input_model;
}

}  // namespace boost::serialization

BOOST_SERIALIZATION_SPLIT_FREE(radial::Standardiser)
BOOST_SERIALIZATION_SPLIT_FREE(radial::Centres)
BOOST_SERIALIZATION_SPLIT_FREE(radial::Model)

BOOST_CLASS_VERSION(radial::Vector, radial::model_archive::array_version)
BOOST_CLASS_VERSION(radial::Matrix, radial::model_archive::array_version)
BOOST_CLASS_VERSION(radial::Tensor3, radial::model_archive::array_version)
BOOST_CLASS_VERSION(radial::Labels, radial::model_archive::array_version)
BOOST_CLASS_VERSION(radial::StateValue, radial::model_archive::variant_version)
BOOST_CLASS_VERSION(radial::ParamValue, radial::model_archive::variant_version)
BOOST_CLASS_VERSION(radial::Standardiser, radial::model_archive::standardiser_version)
BOOST_CLASS_VERSION(radial::Centres, radial::model_archive::centres_version)
BOOST_CLASS_VERSION(radial::Model, radial::model_archive::model_version)
