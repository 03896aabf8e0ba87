#include "csv_shard.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <sstream>
#include <vector>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/exec/parallel.hpp"

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

namespace {

// Part `part` of `parts` of the data bytes, planned from the file alone: its byte range aligned
// to line starts, its line ends, and its trailing run of blank lines.
struct PartPlan {
  std::uint64_t begin = 0, end = 0;
  std::uint64_t line_ends = 0;
  bool has_blank_tail = false, all_blank = false;
  std::uint64_t blank_index = 0;  // index in the part of the first line of its blank tail
};

PartPlan plan_part(const CsvScanner& scanner, std::uint64_t part, std::uint64_t parts) {
  const std::uint64_t data = scanner.offset(), size = std::max(scanner.size(), data);
  const std::uint64_t bytes = size - data;
  const auto cut = [&](std::uint64_t r) {
    return data + std::uint64_t((unsigned __int128)bytes * r / parts);
  };
  PartPlan plan;
  plan.begin = line_start_from(scanner, cut(part), data, size);
  plan.end = part + 1 == parts ? size : line_start_from(scanner, cut(part + 1), data, size);
  if (plan.end <= plan.begin) {
    plan.end = plan.begin;
    return plan;
  }
  const std::uint64_t content = end_of_content(scanner, plan.begin, plan.end);
  // Lines before the content's last byte's line end, then those after it.
  const std::uint64_t before = count_line_ends(scanner, plan.begin, content);
  plan.line_ends = before + count_line_ends(scanner, content, plan.end);
  char last = '\0';
  scanner.read_at(plan.end - 1, &last, 1);
  const std::uint64_t lines = plan.line_ends + (last == '\n' || last == '\r' ? 0 : 1);
  if (content == plan.begin) {
    plan.has_blank_tail = plan.all_blank = true;
    plan.blank_index = 0;
  } else if (before + 1 < lines) {
    plan.has_blank_tail = true;
    plan.blank_index = before + 1;  // the line after the one holding the last content byte
  }
  return plan;
}

// A part's blank tail as the next parts see it.
struct BlankTail {
  bool nonempty = false;
  std::size_t first_blank = 0;  // line number of the tail's first line, 0 if none
  bool blank_range = false;
};

BlankTail tail_of(const PartPlan& plan, std::size_t first_line) {
  return {plan.end > plan.begin, plan.has_blank_tail ? first_line + plan.blank_index : 0,
          plan.all_blank};
}

// The first line of a blank run open at the start of the part after tails[0..count): it begins
// in the nearest earlier nonempty parts. 0 when none is open.
std::size_t open_blank_line(const std::vector<BlankTail>& tails, std::size_t count) {
  std::size_t blank_line = 0;
  for (std::size_t q = count; q-- > 0;) {
    if (!tails[q].nonempty) continue;
    if (tails[q].first_blank == 0) break;
    blank_line = tails[q].first_blank;
    if (!tails[q].blank_range) break;
  }
  return blank_line;
}

}  // namespace

CsvShard plan_csv_shard(const CsvScanner& scanner) {
  Collectives& comm = collectives();
  PartPlan plan;
  agreed([&] { plan = plan_part(scanner, std::uint64_t(comm.rank()), std::uint64_t(comm.size())); });
  CsvShard shard;
  shard.begin = plan.begin;
  shard.end = plan.end;
  const ShardLayout layout = shard_layout(std::size_t(plan.line_ends));
  shard.first_line = 2 + layout.first;  // line 1 is the header

  // Each rank's blank tail; a blank run open at this range's start begins in earlier ranges.
  const BlankTail own = tail_of(plan, shard.first_line);
  std::ostringstream mine;
  mine << (own.nonempty ? 1 : 0) << ' ' << own.first_blank << ' ' << (own.blank_range ? 1 : 0);
  const std::vector<std::string> texts = comm.all_gather(mine.str());
  std::vector<BlankTail> tails(std::size_t(comm.rank()));
  for (std::size_t q = 0; q < tails.size(); ++q) {
    std::istringstream in(texts[q]);
    int nonempty = 0, blank_range = 0;
    in >> nonempty >> tails[q].first_blank >> blank_range;
    tails[q].nonempty = nonempty != 0;
    tails[q].blank_range = blank_range != 0;
  }
  shard.blank_line = open_blank_line(tails, tails.size());
  return shard;
}

std::vector<CsvPart> split_csv_parts(const CsvScanner& scanner, std::size_t parts) {
  std::vector<CsvPart> out(parts);
  std::vector<std::exception_ptr> failures(parts);
  const std::uint64_t data = scanner.offset(), size = std::max(scanner.size(), data);
  const std::uint64_t bytes = size - data;
  const auto cut = [&](std::uint64_t r) {
    return data + std::uint64_t((unsigned __int128)bytes * r / parts);
  };
  // Each part reads only its own bytes, all at once.
  parallel_for_blocks(parts, 1, int(parts), [&](std::size_t, const RowBlock& b) {
    try {
      CsvPart& part = out[b.index];
      part.begin = line_start_from(scanner, cut(b.index), data, size);
      part.end = b.index + 1 == parts ? size : line_start_from(scanner, cut(b.index + 1), data, size);
      if (part.end <= part.begin) {
        part.end = part.begin;
        return;
      }
      const std::uint64_t content = end_of_content(scanner, part.begin, part.end);
      part.has_content = content > part.begin;
      // As plan_part: a line after the one holding the last content byte.
      char last = '\0';
      scanner.read_at(part.end - 1, &last, 1);
      const std::uint64_t after = count_line_ends(scanner, content, part.end) +
                                  (last == '\n' || last == '\r' ? 0 : 1);
      part.blank_tail = !part.has_content || after > 1;
    } catch (...) {
      failures[b.index] = std::current_exception();
    }
  });
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
  return out;
}

}  // namespace radial::data
