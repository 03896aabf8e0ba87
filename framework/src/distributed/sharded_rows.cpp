// Rows picked by global index over the shards of collectives() (sharded_rows.hpp).
#include "radial/distributed/sharded_rows.hpp"

#include <cstdint>
#include <cstring>
#include <string>

#include "radial/core/errors.hpp"
#include "radial/distributed/sharded_pass.hpp"

namespace radial {

namespace {

void append(std::string& out, const void* data, std::size_t bytes) {
  out.append(static_cast<const char*>(data), bytes);
}

}  // namespace

Matrix gather_rows(const Matrix& x, const ShardLayout& layout,
                   const std::vector<std::size_t>& rows) {
  const std::size_t d = x.dimension() == 2 ? x.shape(1) : 0;
  Matrix out = Matrix::from_shape({rows.size(), d});
  Collectives& comm = collectives();
  for (const std::size_t row : rows)
    if (row >= layout.total)
      throw Error("gather_rows: row " + std::to_string(row) + " beyond the " +
                  std::to_string(layout.total) + " rows of the shards");
  if (comm.size() == 1) {
    for (std::size_t i = 0; i < rows.size(); ++i)
      std::memcpy(out.data() + i * d, x.data() + rows[i] * d, d * sizeof(double));
    return out;
  }
  // Each rank sends the rows it owns in the order asked; the receivers know the owners.
  std::string mine;
  const std::size_t first = layout.first, count = x.shape(0);
  for (const std::size_t row : rows)
    if (row >= first && row < first + count)
      append(mine, x.data() + (row - first) * d, d * sizeof(double));
  const std::vector<std::string> all = comm.all_gather(mine);
  std::vector<std::size_t> read(all.size(), 0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto q = std::size_t(layout.owner(rows[i]));
    std::memcpy(out.data() + i * d, all[q].data() + read[q], d * sizeof(double));
    read[q] += d * sizeof(double);
  }
  return out;
}

std::vector<double> per_rank(double value) {
  Collectives& comm = collectives();
  std::vector<double> v(std::size_t(comm.size()), 0.0);
  v[std::size_t(comm.rank())] = value;
  comm.sum(v.data(), v.size());
  return v;
}

RowCandidate best_candidate(const RowCandidate& mine, bool largest) {
  Collectives& comm = collectives();
  if (comm.size() == 1) return mine.has ? mine : RowCandidate{};
  // has (1 byte), key, row, tag, d, values.
  std::string bytes;
  const char has = mine.has ? 1 : 0;
  append(bytes, &has, 1);
  if (mine.has) {
    const std::uint64_t row = mine.row, d = mine.values.size();
    append(bytes, &mine.key, sizeof(double));
    append(bytes, &row, sizeof(row));
    append(bytes, &mine.tag, sizeof(mine.tag));
    append(bytes, &d, sizeof(d));
    append(bytes, mine.values.data(), mine.values.size() * sizeof(double));
  }
  RowCandidate best;
  for (const std::string& b : comm.all_gather(bytes)) {
    if (b.empty() || b[0] == 0) continue;
    RowCandidate c;
    c.has = true;
    std::uint64_t row = 0, d = 0;
    std::size_t at = 1;
    std::memcpy(&c.key, b.data() + at, sizeof(double));
    at += sizeof(double);
    std::memcpy(&row, b.data() + at, sizeof(row));
    at += sizeof(row);
    std::memcpy(&c.tag, b.data() + at, sizeof(c.tag));
    at += sizeof(c.tag);
    std::memcpy(&d, b.data() + at, sizeof(d));
    at += sizeof(d);
    c.row = std::size_t(row);
    c.values.resize(std::size_t(d));
    std::memcpy(c.values.data(), b.data() + at, std::size_t(d) * sizeof(double));
    const bool better = !best.has || (largest ? c.key > best.key : c.key < best.key) ||
                        (c.key == best.key && c.row < best.row);
    if (better) best = std::move(c);
  }
  return best;
}

std::size_t take_best_rows(std::size_t count, const std::vector<std::size_t>& order, bool largest,
                           const std::function<bool(std::size_t)>& eligible,
                           const std::function<RowCandidate(std::size_t)>& candidate,
                           const std::function<void(const RowCandidate&, std::size_t)>& take) {
  std::size_t next = 0;
  for (std::size_t round = 0; round < count; ++round) {
    while (next < order.size() && !eligible(order[next])) ++next;
    const RowCandidate mine = next < order.size() ? candidate(order[next]) : RowCandidate{};
    const RowCandidate best = best_candidate(mine, largest);
    if (!best.has) return round;
    const bool own = mine.has && best.row == mine.row;
    take(best, own ? order[next] : std::size_t(-1));
    if (own) ++next;
  }
  return count;
}

Vector column_variances(const Matrix& x, std::size_t rows) {
  const std::size_t n = x.shape(0), d = x.shape(1);
  std::vector<double> mean(d, 0.0), var(d, 0.0);
  chain_over_ranks(mean, [&](std::vector<double>& sum) {
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t r = 0; r < n; ++r) sum[a] += x(r, a);
  });
  for (std::size_t a = 0; a < d; ++a) mean[a] /= double(rows);
  chain_over_ranks(var, [&](std::vector<double>& sum) {
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t r = 0; r < n; ++r) sum[a] += (x(r, a) - mean[a]) * (x(r, a) - mean[a]);
  });
  Vector out = Vector::from_shape({d});
  for (std::size_t a = 0; a < d; ++a) out(a) = var[a] / double(rows);
  return out;
}

std::vector<std::size_t> sample_rows(std::size_t local_rows, std::size_t first,
                                     std::size_t total, std::size_t target, std::uint64_t seed) {
  std::vector<std::size_t> kept;
  if (total <= target) {
    kept.resize(local_rows);
    for (std::size_t i = 0; i < local_rows; ++i) kept[i] = i;
    return kept;
  }
  const double keep = double(target) / double(total);
  kept.reserve(std::size_t(1.1 * keep * double(local_rows)) + 64);
  for (std::size_t i = 0; i < local_rows; ++i) {
    // SplitMix64 of (seed, row), as derive_seed (radial/training/trainer.hpp) mixes a stream.
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (first + i + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    if (double(z >> 11) * 0x1p-53 < keep) kept.push_back(i);
  }
  return kept;
}

}  // namespace radial
