// The bounded text archive (bounded_iarchive.hpp): Boost's text archive with the two reads
// that allocate what the input claims replaced by checked ones.
#include "bounded_iarchive.hpp"

#include <boost/archive/impl/archive_serializer_map.ipp>
#include <boost/archive/impl/basic_text_iarchive.ipp>
#include <boost/archive/impl/text_iarchive_impl.ipp>

#include "model_archive.hpp"

namespace boost::archive {
template class basic_text_iarchive<radial::model_archive::BoundedTextIArchive>;
template class text_iarchive_impl<radial::model_archive::BoundedTextIArchive>;
template class detail::archive_serializer_map<radial::model_archive::BoundedTextIArchive>;
}  // namespace boost::archive

namespace radial::model_archive {

BoundedTextIArchive::BoundedTextIArchive(std::istream& in) : Base(in, 0) { init(); }

BoundedTextIArchive::~BoundedTextIArchive() = default;

std::uint64_t BoundedTextIArchive::remaining() const {
  const std::streamsize left = is.rdbuf()->in_avail();
  return left > 0 ? std::uint64_t(left) : 0;
}

void BoundedTextIArchive::load(std::string& s) {
  std::size_t size = 0;
  basic_text_iprimitive<std::istream>::load(size);
  is.get();  // the space between the length and the characters
  if (size > remaining())
    throw ArchiveInconsistency("a string of " + std::to_string(size) + " bytes where " +
                               std::to_string(remaining()) + " bytes remain");
  s.resize(size);
  if (size == 0) return;
  is.read(&s[0], std::streamsize(size));
  if (std::size_t(is.gcount()) != size)
    throw ArchiveInconsistency("a string cut short at the end of the archive");
}

void BoundedTextIArchive::load(boost::serialization::collection_size_type& count) {
  std::size_t value = 0;
  basic_text_iprimitive<std::istream>::load(value);
  // Every element of a Boost collection takes at least two characters ("0 ").
  if (value > remaining() / 2)
    throw ArchiveInconsistency("a collection of " + std::to_string(value) + " elements where " +
                               std::to_string(remaining()) + " bytes remain");
  // The model's maps (parameters, state, plugin versions) are small; a node costs far more
  // memory than its characters, so a crafted count is capped outright.
  if (value > max_map_entries)
    throw ArchiveInconsistency("a collection of " + std::to_string(value) +
                               " elements, more than the " + std::to_string(max_map_entries) +
                               " a model may hold");
  count = boost::serialization::collection_size_type(value);
}

}  // namespace radial::model_archive
