#pragma once
// A Boost text input archive that never allocates more than its input can still supply.
//
// Boost's text_iarchive resizes a string to the length the archive claims, so a crafted model
// claiming a 3 GB class name makes the reader allocate 3 GB. This archive reads the same bytes
// (the file format is unchanged) but refuses any string length, and any collection count of
// Boost's own containers, that the bytes left in the payload cannot hold, before allocating.
// The model store's own counts and array shapes are bounded the same way through remaining()
// (model_archive.hpp).

#include <cstdint>
#include <istream>
#include <string>

#include <boost/archive/detail/register_archive.hpp>
#include <boost/archive/text_iarchive.hpp>
#include <boost/serialization/collection_size_type.hpp>

namespace radial::model_archive {

class BoundedTextIArchive : public boost::archive::text_iarchive_impl<BoundedTextIArchive> {
  using Base = boost::archive::text_iarchive_impl<BoundedTextIArchive>;

 public:
  // `in` must read from memory (its buffer's in_avail() is the number of bytes left).
  explicit BoundedTextIArchive(std::istream& in);
  ~BoundedTextIArchive() override;

  // Bytes not read yet: every count read from the archive is checked against it.
  std::uint64_t remaining() const;

 protected:
  friend class boost::archive::detail::interface_iarchive<BoundedTextIArchive>;
  friend class boost::archive::basic_text_iarchive<BoundedTextIArchive>;
  friend class boost::archive::load_access;

  using Base::load;
  void load(std::string& s);
  void load(boost::serialization::collection_size_type& count);
};

}  // namespace radial::model_archive

BOOST_SERIALIZATION_REGISTER_ARCHIVE(radial::model_archive::BoundedTextIArchive)
