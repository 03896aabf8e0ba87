#pragma once
// A CSV file split into the byte ranges of the ranks of collectives()
// (radial/distributed/collectives.hpp), private to the data readers.
//
// After the header (read by every rank) the S data bytes are cut at S*r/P; rank r owns the lines
// that start in [S*r/P, S*(r+1)/P), so its range runs from the first line start at or after
// its cut to the first one at or after the next rank's cut. Messages name the line numbers of
// the whole file: each rank counts the line ends in its range (memchr over the bytes, cheap next
// to parsing) and the counts are prefix-summed over ranks (shard_layout). A run of blank lines
// at the end of one range followed by data in a later range is the same error as on the whole
// file: each range's trailing blank run is shared, and the range after it starts inside the run.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "csv_scanner.hpp"

namespace radial::data {

struct CsvShard {
  std::uint64_t begin = 0, end = 0;  // this rank's bytes, aligned to line starts
  std::size_t first_line = 0;        // line number (in the whole file) of the line at `begin`
  std::size_t blank_line = 0;        // first line of a blank run open at `begin`, 0 if none
};

// This rank's range of the file of `scanner`, whose header() has been read. Collective; errors
// (a read error, a line longer than CsvScanner::max_line_bytes across a cut) are agreed.
CsvShard plan_csv_shard(const CsvScanner& scanner);

// One process's read in `parts` parts at once (one thread each): the same ranges as the ranks'
// shards, found without counting lines (each part's reader counts its own rows).
struct CsvPart {
  std::uint64_t begin = 0, end = 0;  // aligned to line starts
  bool has_content = false;          // a byte other than spaces, tabs and line ends
  bool blank_tail = false;           // blank lines after its last content (or nothing else)
};
// DataError for a line longer than CsvScanner::max_line_bytes across a cut.
std::vector<CsvPart> split_csv_parts(const CsvScanner& scanner, std::size_t parts);

// DataError unless `regular`: a pipe, FIFO or stream cannot be split into ranges by `ranks`
// ranks (it can be read only once, from its start).
void require_shardable(bool regular, const std::string& name, int ranks);

}  // namespace radial::data
