#include "collectives/broadcast.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "collectives/error.h"
#include "collectives/segments.h"
#include "collectives/wait.h"

namespace shardroof::coll {

RingBroadcast::RingBroadcast(Transport& transport, MemoryOps& memory, CollectiveOptions options)
    : transport_(transport), memory_(memory), options_(options) {}

void RingBroadcast::run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp /*op*/) {
  Transport& t = transport_;
  const int n = t.size();
  const int rank = t.rank();
  const int root = options_.broadcast.root;
  if (root < 0 || root >= n)
    throw InvalidArgument("broadcast: root " + std::to_string(root) + " is not a rank of " + std::to_string(n));
  const std::size_t es = size_of(type);
  auto* out = static_cast<std::byte*>(recv);
  if (n == 1 || count == 0) {
    memory_.copy(recv, send, count * es);  // no-op in place
    memory_.synchronize();
    return;
  }
  const int position = (rank - root + n) % n;
  const int next = (rank + 1) % n;
  const int prev = (rank + n - 1) % n;
  const bool forwards = position != n - 1;
  // With nobody forwarding (two ranks) pipelining buys nothing: the best k
  // of the cost formula is 1, so automatic segments cover the whole message.
  const std::size_t cap = n == 2 ? count * es : memory_.max_segment_bytes();
  const std::size_t seg = segment_elements(count, es, options_.segment_bytes, cap);
  const std::size_t segments = segment_count(count, seg);
  const auto bytes_of = [&](std::size_t j) { return std::min(seg, count - j * seg) * es; };
  const int tag = options_.tag + 6;
  Tracer* const tr = options_.tracer;
  // The root sends from its input, so its sends do not wait for its own copy.
  const std::byte* from = rank == root ? static_cast<const std::byte*>(send) : out;

  // At most two sends in flight: send j waits for send j-2.
  const auto forward = [&](std::size_t j) {
    if (sends_.size() == 2) {
      TraceSpan span(tr, "wait send", "wait", {{"segment", static_cast<std::int64_t>(j) - 2}, {"to", next}});
      std::vector<RequestPtr> oldest;
      oldest.push_back(std::move(sends_.front()));
      sends_.erase(sends_.begin());
      wait_all_politely(oldest, transport_.wait_policy());
    }
    TraceSpan span(tr, "send", "comm", {{"segment", j}, {"bytes", bytes_of(j)}, {"to", next}});
    sends_.push_back(t.isend(from + j * seg * es, bytes_of(j), next, tag));
  };

  if (position == 0) {
    // Out of place, the root copies each segment to its output while the
    // segment is on its way.
    for (std::size_t j = 0; j < segments; ++j) {
      forward(j);
      memory_.copy(out + j * seg * es, from + j * seg * es, bytes_of(j));  // no-op in place
    }
  } else {
    std::vector<RequestPtr> current, following;
    current.push_back(t.irecv(out, bytes_of(0), prev, tag));
    for (std::size_t j = 0; j < segments; ++j) {
      if (j + 1 < segments) following.push_back(t.irecv(out + (j + 1) * seg * es, bytes_of(j + 1), prev, tag));
      {
        TraceSpan span(tr, "recv", "wait", {{"segment", j}, {"bytes", bytes_of(j)}, {"from", prev}});
        wait_all_politely(current, transport_.wait_policy());
      }
      if (forwards) forward(j);
      std::swap(current, following);
    }
  }
  {
    TraceSpan span(tr, "wait send", "wait", {{"to", next}});
    wait_all_politely(sends_, transport_.wait_policy());
  }
  memory_.synchronize();
}

}  // namespace shardroof::coll
