#include "collectives/ring_reduce_scatter.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "collectives/blocks.h"
#include "collectives/ring_detail.h"
#include "collectives/segments.h"

namespace shardroof::coll {
namespace detail {

void RingReduceScatterPhase::run(const void* input, void* full_output, void* block_output, std::size_t count,
                                 DataType type, ReduceOp op) {
  Transport& transport = transport_;
  MemoryOps& memory = memory_;
  const CollectiveOptions& options = options_;
  if (transport.size() == 1) {
    memory.copy(full_output ? full_output : block_output, input, count * size_of(type));
    return;
  }
  const int n = transport.size();
  const int rank = transport.rank();
  const std::size_t es = size_of(type);
  const BlockPartition part(count, n);
  const auto* in = static_cast<const std::byte*>(input);
  auto* full = static_cast<std::byte*>(full_output);
  const int next = (rank + 1) % n;
  const int prev = (rank + n - 1) % n;
  const auto mod = [n](int x) { return ((x % n) + n) % n; };

  const std::size_t seg_elems =
      segment_elements(part.max_size(), es, options.segment_bytes, memory.max_segment_bytes());
  const std::size_t seg_bytes = seg_elems * es;
  // Every segment of a step has its own receive buffer, all posted as the
  // step starts: a segment past the eager limit waits for the receiver's
  // answer to its rendezvous, and a receive posted only when the one before
  // it completed answers late, behind this rank's own segments on the same
  // connection (over TCP, at 0.5 Gbit/s, 16 MiB on 2 ranks: 0.76 of the
  // line rate with two buffers, 0.99 with all posted). It costs a block of
  // scratch. The sends go first: a rank's answers leave behind what it
  // queued before them, and a late rank that answered before it sent put
  // its own requests behind its answers, so its peer's data went first and
  // its own waited (hier on 2 x 2 at 0.5 Gbit/s, one direction of a level
  // at half the rate: 111 ms at 4 MiB against 79).
  auto* recv_seg =
      static_cast<std::byte*>(segments_.get(memory, segment_count(part.max_size(), seg_elems) * seg_bytes));
  std::byte* work = nullptr;
  if (!full) work = static_cast<std::byte*>(blocks_.get(memory, 2 * part.max_size() * es));

  // Where the partial sum of block b is written in step k.
  const auto acc = [&](int step, int b) -> std::byte* {
    if (full) return full + part.offset(b) * es;
    if (step == n - 2) return static_cast<std::byte*>(block_output);
    return work + static_cast<std::size_t>(step % 2) * part.max_size() * es;
  };

  Tracer* const tr = options.tracer;
  std::vector<RequestPtr> sends;
  std::vector<RequestPtr> recvs;
  for (int step = 0; step < n - 1; ++step) {
    const int b_send = mod(rank - step - 1);
    const int b_recv = mod(rank - step - 2);
    const std::byte* src = step == 0 ? in + part.offset(b_send) * es : acc(step - 1, b_send);
    const std::size_t n_send = part.size(b_send);
    const std::size_t n_recv = part.size(b_recv);
    const int tag = options.tag;
    TraceSpan step_span(tr, "reduce-scatter step", "step",
                        {{"step", step}, {"bytes_sent", n_send * es}, {"bytes_received", n_recv * es},
                         {"to", next}, {"from", prev}});

    const std::byte* mine = in + part.offset(b_recv) * es;
    std::byte* dst = acc(step, b_recv);
    const std::size_t nseg = segment_count(n_recv, seg_elems);
    const auto seg_len = [&](std::size_t j) { return std::min(seg_elems, n_recv - j * seg_elems); };
    {
      TraceSpan span(tr, "send", "comm",
                     {{"step", step}, {"bytes", n_send * es},
                      {"segments", segment_count(n_send, seg_elems)}, {"to", next}});
      for (std::size_t off = 0; off < n_send; off += seg_elems) {
        const std::size_t len = std::min(seg_elems, n_send - off);
        sends.push_back(transport.isend(src + off * es, len * es, next, tag));
      }
    }
    recvs.clear();
    for (std::size_t j = 0; j < nseg; ++j)
      recvs.push_back(transport.irecv(recv_seg + j * seg_bytes, seg_len(j) * es, prev, tag));
    for (std::size_t j = 0; j < nseg; ++j) {
      const std::size_t off = j * seg_elems;
      {
        TraceSpan span(tr, "recv", "wait", {{"step", step}, {"segment", j}, {"bytes", seg_len(j) * es}, {"from", prev}});
        recvs[j]->wait();
      }
      TraceSpan span(tr, "reduce", "compute", {{"step", step}, {"segment", j}, {"bytes", seg_len(j) * es}});
      memory.reduce(dst + off * es, mine + off * es, recv_seg + j * seg_bytes, seg_len(j), type, op);
    }
    // The next step sends what this one reduced, and the buffer this step
    // sent from is written again two steps later: both need the sends done.
    TraceSpan span(tr, "wait send", "wait", {{"step", step}, {"bytes", n_send * es}, {"to", next}});
    wait_all(sends);
  }
}

void RingReduceScatterPhase::finish(void* result, std::size_t elements, DataType type, ReduceOp op) {
  if (op == ReduceOp::Avg) memory_.divide(result, elements, type, transport_.size());
  memory_.synchronize();
}

}  // namespace detail

RingReduceScatter::RingReduceScatter(Transport& transport, MemoryOps& memory, CollectiveOptions options)
    : phase_(std::make_unique<detail::RingReduceScatterPhase>(transport, memory, options)) {}

RingReduceScatter::~RingReduceScatter() = default;

void RingReduceScatter::run(const void* send, void* recv, std::size_t count, DataType type,
                            ReduceOp op) {
  Transport& t = phase_->transport();
  phase_->run(send, nullptr, recv, count, type, op);
  phase_->finish(recv, BlockPartition(count, t.size()).size(t.rank()), type, op);
}

}  // namespace shardroof::coll
