// Moving shards onto block boundaries (block_shards.hpp).
#include "block_shards.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "radial/distributed/collectives.hpp"
#include "radial/exec/parallel.hpp"

namespace radial::data {
namespace {

struct Span {
  std::size_t first = 0, end = 0;
  std::size_t size() const { return end > first ? end - first : 0; }
};

Span overlap(Span a, Span b) { return {std::max(a.first, b.first), std::min(a.end, b.end)}; }

// The rows [from, from + count) of the local arrays (global rows start at `base`), as bytes:
// inputs, then classes or values.
std::string pack(const Matrix& inputs, const Labels* classes, const Vector* values,
                 std::size_t from, std::size_t count) {
  const std::size_t d = inputs.shape(1);
  std::string bytes(count * d * sizeof(double) +
                        count * (classes ? sizeof(std::int64_t) : values ? sizeof(double) : 0),
                    '\0');
  char* out = bytes.data();
  if (count != 0 && d != 0) std::memcpy(out, inputs.data() + from * d, count * d * sizeof(double));
  out += count * d * sizeof(double);
  if (classes && count) std::memcpy(out, classes->data() + from, count * sizeof(std::int64_t));
  if (values && count) std::memcpy(out, values->data() + from, count * sizeof(double));
  return bytes;
}

void unpack(const std::string& bytes, Matrix& inputs, Labels* classes, Vector* values,
            std::size_t at, std::size_t count) {
  const std::size_t d = inputs.shape(1);
  const char* in = bytes.data();
  if (count != 0 && d != 0) std::memcpy(inputs.data() + at * d, in, count * d * sizeof(double));
  in += count * d * sizeof(double);
  if (classes && count) std::memcpy(classes->data() + at, in, count * sizeof(std::int64_t));
  if (values && count) std::memcpy(values->data() + at, in, count * sizeof(double));
}

}  // namespace

void move_to_block_shards(Matrix& inputs, Labels* classes, Vector* values) {
  Collectives& comm = collectives();
  const int p = comm.size(), me = comm.rank();
  if (p == 1) return;
  const ShardLayout layout = shard_layout(inputs.shape(0));
  std::vector<Span> now(static_cast<std::size_t>(p)), target(static_cast<std::size_t>(p));
  std::size_t start = 0;
  bool aligned = true;
  for (int q = 0; q < p; ++q) {
    now[std::size_t(q)] = {start, start + layout.counts[std::size_t(q)]};
    start += layout.counts[std::size_t(q)];
    const RowRange r = block_shard(layout.total, q, p, parallel_block_rows);
    target[std::size_t(q)] = {r.first, r.first + r.count};
    aligned = aligned && now[std::size_t(q)].first == target[std::size_t(q)].first &&
              now[std::size_t(q)].end == target[std::size_t(q)].end;
  }
  if (aligned) return;  // the same decision on every rank: the layout is global

  const Span mine = now[std::size_t(me)], goal = target[std::size_t(me)];
  const std::size_t d = inputs.shape(1);
  Matrix new_inputs = xt::empty<double>({goal.size(), d});
  Labels new_classes;
  Vector new_values;
  if (classes) new_classes = xt::empty<std::int64_t>({goal.size()});
  if (values) new_values = xt::empty<double>({goal.size()});
  Labels* nc = classes ? &new_classes : nullptr;
  Vector* nv = values ? &new_values : nullptr;

  // The rows this rank keeps.
  const Span keep = overlap(mine, goal);
  if (keep.size())
    unpack(pack(inputs, classes, values, keep.first - mine.first, keep.size()), new_inputs, nc,
           nv, keep.first - goal.first, keep.size());
  // One phase per sending rank, in rank order: the sender sends to each receiver in rank order
  // and every receiver of that phase waits only for it, so blocking sends cannot deadlock.
  for (int src = 0; src < p; ++src) {
    if (src == me) {
      for (int dst = 0; dst < p; ++dst) {
        if (dst == me) continue;
        const Span part = overlap(mine, target[std::size_t(dst)]);
        if (part.size())
          comm.send(dst, pack(inputs, classes, values, part.first - mine.first, part.size()));
      }
    } else {
      const Span part = overlap(now[std::size_t(src)], goal);
      if (part.size())
        unpack(comm.receive(src), new_inputs, nc, nv, part.first - goal.first, part.size());
    }
  }
  inputs = std::move(new_inputs);
  if (classes) *classes = std::move(new_classes);
  if (values) *values = std::move(new_values);
}

void move_to_block_shards(Dataset& data) {
  const bool classification = data.task == Task::Classification;
  move_to_block_shards(data.inputs, classification ? &data.classes : nullptr,
                       classification ? nullptr : &data.values);
}

}  // namespace radial::data
