#include "csv_shard.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <vector>

#include "radial/distributed/collectives.hpp"
#include "radial/errors.hpp"

namespace radial::data {
namespace {

constexpr std::size_t block_bytes = std::size_t(1) << 20;

bool is_blank_byte(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The first line start at or after `at` among the data bytes [data, size): `data` itself, or
// the byte after an LF, after a CR not followed by LF (the scanner's CR-only line ends), or
// after a CRLF. `size` when no line starts there.
std::uint64_t line_start_from(const CsvScanner& scanner, std::uint64_t at, std::uint64_t data,
                              std::uint64_t size) {
  if (at <= data) return data;
  if (at >= size) return size;
  std::vector<char> block(block_bytes + 1);  // one byte more to see the LF of a CRLF
  std::uint64_t q = at - 1;                   // the byte before a candidate start
  while (q < size) {
    const std::size_t got = scanner.read_at(q, block.data(), block.size());
    if (got == 0) return size;
    const std::size_t look = std::min(got, block_bytes);
    for (std::size_t i = 0; i < look; ++i) {
      if (block[i] == '\n') return q + i + 1;
      if (block[i] == '\r') {
        if (i + 1 < got) return q + i + 1 + (block[i + 1] == '\n' ? 1 : 0);
        return q + i + 1;  // the last byte of the file
      }
    }
    q += look;
    if (q - at > CsvScanner::max_line_bytes + 2) {
      throw DataError(scanner.name() + ": the line through byte " + std::to_string(at) +
                      " is longer than " + byte_count_text(CsvScanner::max_line_bytes) +
                      ", the most Radial reads as one row; is this a CSV file with line ends?");
    }
  }
  return size;
}

// Line ends (LF, CRLF, lone CR) among the bytes [from, to), where `to` is a line start or the
// end of the file (so a CR just before `to` is a line end of its own).
std::uint64_t count_line_ends(const CsvScanner& scanner, std::uint64_t from, std::uint64_t to) {
  std::vector<char> block(block_bytes);
  std::uint64_t count = 0;
  bool pending_cr = false;  // a CR ended the previous block
  for (std::uint64_t pos = from; pos < to;) {
    const auto want = std::size_t(std::min<std::uint64_t>(block_bytes, to - pos));
    const std::size_t got = scanner.read_at(pos, block.data(), want);
    if (got == 0) break;
    const char* data = block.data();
    const char* const end = data + got;
    if (pending_cr && data[0] != '\n') ++count;
    pending_cr = false;
    const auto next = [end](const char* p, char c) {
      return static_cast<const char*>(std::memchr(p, c, std::size_t(end - p)));
    };
    for (const char* p = next(data, '\n'); p != nullptr; p = next(p + 1, '\n')) ++count;
    for (const char* p = next(data, '\r'); p != nullptr; p = next(p + 1, '\r')) {
      if (p + 1 == end) {
        pending_cr = true;
      } else if (p[1] != '\n') {
        ++count;
      }
    }
    pos += got;
  }
  return count + (pending_cr ? 1 : 0);
}

// The offset after the last byte of [begin, end) that is not a space, tab or line end; `begin`
// when there is none.
std::uint64_t end_of_content(const CsvScanner& scanner, std::uint64_t begin, std::uint64_t end) {
  std::vector<char> block(std::size_t(std::min<std::uint64_t>(block_bytes, end - begin)));
  for (std::uint64_t pos = end; pos > begin;) {
    const std::size_t chunk = std::size_t(std::min<std::uint64_t>(block.size(), pos - begin));
    const std::size_t got = scanner.read_at(pos - chunk, block.data(), chunk);
    for (std::size_t i = got; i-- > 0;)
      if (!is_blank_byte(block[i])) return pos - chunk + i + 1;
    pos -= chunk;
  }
  return begin;
}

}  // namespace

void require_shardable(bool regular, const std::string& name, int ranks) {
  if (!regular) {
    throw DataError(name + ": a pipe, FIFO or stream cannot be split among the " +
                    std::to_string(ranks) + " ranks of this run (each rank reads a byte range of "
                    "a regular file); write the data to a file first, or run one process");
  }
}

CsvShard plan_csv_shard(const CsvScanner& scanner) {
  Collectives& comm = collectives();
  const auto ranks = std::uint64_t(comm.size()), rank = std::uint64_t(comm.rank());
  const std::uint64_t data = scanner.offset(), size = std::max(scanner.size(), data);
  const std::uint64_t bytes = size - data;
  const auto cut = [&](std::uint64_t r) {
    return data + std::uint64_t((unsigned __int128)bytes * r / ranks);
  };

  CsvShard shard;
  std::uint64_t line_ends = 0;
  // This range's trailing blank lines: the index (in the range) of the first, whether every
  // line of the range is blank.
  bool has_blank_tail = false, all_blank = false;
  std::uint64_t blank_index = 0;
  agreed([&] {
    shard.begin = line_start_from(scanner, cut(rank), data, size);
    shard.end = rank + 1 == ranks ? size : line_start_from(scanner, cut(rank + 1), data, size);
    if (shard.end <= shard.begin) {
      shard.end = shard.begin;
      return;
    }
    const std::uint64_t content = end_of_content(scanner, shard.begin, shard.end);
    // Lines before the content's last byte's line end, then those after it.
    const std::uint64_t before = count_line_ends(scanner, shard.begin, content);
    line_ends = before + count_line_ends(scanner, content, shard.end);
    char last = '\0';
    scanner.read_at(shard.end - 1, &last, 1);
    const std::uint64_t lines = line_ends + (last == '\n' || last == '\r' ? 0 : 1);
    if (content == shard.begin) {
      has_blank_tail = all_blank = true;
      blank_index = 0;
    } else if (before + 1 < lines) {
      has_blank_tail = true;
      blank_index = before + 1;  // the line after the one holding the last content byte
    }
  });

  const ShardLayout layout = shard_layout(std::size_t(line_ends));
  shard.first_line = 2 + layout.first;  // line 1 is the header

  // Each rank's blank tail ("empty", or its first blank line and whether the range is all
  // blank); a blank run open at this range's start begins in the nearest earlier ranges.
  std::ostringstream mine;
  mine << (shard.end > shard.begin ? 1 : 0) << ' '
       << (has_blank_tail ? shard.first_line + blank_index : 0) << ' ' << (all_blank ? 1 : 0);
  const std::vector<std::string> tails = comm.all_gather(mine.str());
  for (std::size_t q = std::size_t(rank); q-- > 0;) {
    std::istringstream in(tails[q]);
    int nonempty = 0, blank_range = 0;
    std::size_t first_blank = 0;
    in >> nonempty >> first_blank >> blank_range;
    if (nonempty == 0) continue;
    if (first_blank == 0) break;
    shard.blank_line = first_blank;
    if (blank_range == 0) break;
  }
  return shard;
}

}  // namespace radial::data
