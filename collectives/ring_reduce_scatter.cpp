#include "collectives/ring_reduce_scatter.h"

#include <algorithm>
#include <array>
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
  const RingOptions& options = options_;
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
  auto* recv_seg = static_cast<std::byte*>(segments_.get(memory, 2 * seg_bytes));
  // ReduceScatter: step k's partial sums go to work block k % 2. Whole
  // blocks, not a few segments: the next rank takes this rank's step k + 1
  // messages only after all of its own step k, so a partial sum waits for
  // up to a whole block before it leaves (with fewer slots every rank would
  // wait inside step k for the next one to reach step k + 1).
  std::byte* work = nullptr;
  if (!full) work = static_cast<std::byte*>(blocks_.get(memory, 2 * part.max_size() * es));

  // The segments of every step in the order they arrive from prev: step k
  // brings block (rank - k - 2) mod N. Segment j of step k, once reduced,
  // is segment j of what step k + 1 sends, so it leaves at once: the next
  // rank's receive overlaps this rank's next reduction, and the partial sum
  // is read back while it is still in cache instead of after the whole
  // block was written.
  struct Piece {
    std::size_t offset;  // elements into the step's block
    std::size_t length;
  };
  std::vector<Piece> pieces;
  std::vector<std::size_t> step_begin;  // the first piece of each step, and the end
  for (int step = 0; step < n - 1; ++step) {
    step_begin.push_back(pieces.size());
    const int b = mod(rank - step - 2);
    for (std::size_t off = 0; off < part.size(b); off += seg_elems)
      pieces.push_back({off, std::min(seg_elems, part.size(b) - off)});
  }
  step_begin.push_back(pieces.size());

  Tracer* const tr = options.tracer;
  std::vector<RequestPtr> sends;
  std::size_t unwaited_bytes = 0;  // sent and not yet waited for
  const int tag = options.tag;
  {
    // Step 0 sends this rank's own input of block (rank - 1) mod N.
    const int b = mod(rank - 1);
    const std::size_t n_send = part.size(b);
    TraceSpan span(tr, "send", "comm",
                   {{"step", 0}, {"bytes", n_send * es}, {"segments", segment_count(n_send, seg_elems)}, {"to", next}});
    for (std::size_t off = 0; off < n_send; off += seg_elems)
      sends.push_back(transport.isend(in + (part.offset(b) + off) * es, std::min(seg_elems, n_send - off) * es, next, tag));
    unwaited_bytes = n_send * es;
  }

  std::array<RequestPtr, 2> recvs;
  // The sends from work block k % 2 (ReduceScatter), waited for before the
  // block is written again two steps later.
  std::array<std::vector<RequestPtr>, 2> forwarded;
  const auto post = [&](std::size_t i) {
    recvs[i % 2] = transport.irecv(recv_seg + (i % 2) * seg_bytes, pieces[i].length * es, prev, tag);
  };
  if (!pieces.empty()) post(0);
  for (int step = 0; step < n - 1; ++step) {
    const int b_recv = mod(rank - step - 2);
    TraceSpan step_span(tr, "reduce-scatter step", "step",
                        {{"step", step}, {"bytes_sent", part.size(mod(rank - step - 1)) * es},
                         {"bytes_received", part.size(b_recv) * es}, {"to", next}, {"from", prev}});
    const bool last_step = step == n - 2;
    if (!full && !forwarded[step % 2].empty()) {
      TraceSpan span(tr, "wait send", "wait",
                     {{"step", step - 1}, {"bytes", part.size(mod(rank - step)) * es}, {"to", next}});
      wait_all(forwarded[step % 2]);
      unwaited_bytes -= part.size(mod(rank - step)) * es;
    }
    for (std::size_t i = step_begin[step]; i < step_begin[step + 1]; ++i) {
      if (i + 1 < pieces.size()) post(i + 1);
      const Piece& piece = pieces[i];
      const std::size_t at = (part.offset(b_recv) + piece.offset) * es;
      {
        TraceSpan span(tr, "recv", "wait", {{"step", step}, {"bytes", piece.length * es}, {"from", prev}});
        recvs[i % 2]->wait();
      }
      std::byte* dst = nullptr;
      if (full) {
        dst = full + at;
      } else if (last_step) {
        dst = static_cast<std::byte*>(block_output) + piece.offset * es;
      } else {
        dst = work + (static_cast<std::size_t>(step % 2) * part.max_size() + piece.offset) * es;
      }
      {
        TraceSpan span(tr, "reduce", "compute", {{"step", step}, {"bytes", piece.length * es}});
        memory.reduce(dst, in + at, recv_seg + (i % 2) * seg_bytes, piece.length, type, op);
      }
      if (last_step) continue;
      TraceSpan span(tr, "send", "comm", {{"step", step + 1}, {"bytes", piece.length * es}, {"to", next}});
      (full ? sends : forwarded[step % 2]).push_back(transport.isend(dst, piece.length * es, next, tag));
      unwaited_bytes += piece.length * es;
    }
  }
  // What was sent (the input, partial sums in the output) is written again
  // after this phase (the all-gather, the next call): the sends end here.
  TraceSpan span(tr, "wait send", "wait", {{"step", n - 2}, {"bytes", unwaited_bytes}, {"to", next}});
  wait_all(sends);
  for (auto& f : forwarded) wait_all(f);
}

void RingReduceScatterPhase::finish(void* result, std::size_t elements, DataType type, ReduceOp op) {
  if (op == ReduceOp::Avg) memory_.divide(result, elements, type, transport_.size());
  memory_.synchronize();
}

}  // namespace detail

RingReduceScatter::RingReduceScatter(Transport& transport, MemoryOps& memory, RingOptions options)
    : phase_(std::make_unique<detail::RingReduceScatterPhase>(transport, memory, options)) {}

RingReduceScatter::~RingReduceScatter() = default;

void RingReduceScatter::run(const void* send, void* recv, std::size_t count, DataType type,
                            ReduceOp op) {
  Transport& t = phase_->transport();
  phase_->run(send, nullptr, recv, count, type, op);
  phase_->finish(recv, BlockPartition(count, t.size()).size(t.rank()), type, op);
}

}  // namespace shardroof::coll
