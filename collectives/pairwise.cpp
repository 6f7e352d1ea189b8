#include "collectives/pairwise.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "collectives/blocks.h"
#include "collectives/ring_detail.h"
#include "collectives/segments.h"
#include "collectives/wait.h"

namespace shardroof::coll {

class PairwiseCollective::Impl {
 public:
  Impl(Transport& t, MemoryOps& m, CollectiveOptions o) : transport(t), memory(m), options(o) {}
  Transport& transport;
  MemoryOps& memory;
  CollectiveOptions options;
  detail::ScratchPool slots;
  std::vector<RequestPtr> rs_sends, ag_sends, ag_recvs;
  std::vector<std::vector<RequestPtr>> rs_recvs;  // per segment of this rank's block
};

PairwiseCollective::PairwiseCollective(CollectiveKind kind, Transport& transport, MemoryOps& memory,
                                       CollectiveOptions options)
    : kind_(kind), impl_(std::make_unique<Impl>(transport, memory, options)) {}

PairwiseCollective::~PairwiseCollective() = default;

void PairwiseCollective::run(const void* send, void* recv, std::size_t count, DataType type,
                             ReduceOp op) {
  Impl& s = *impl_;
  Transport& t = s.transport;
  MemoryOps& mem = s.memory;
  const int n = t.size();
  const int rank = t.rank();
  const std::size_t es = size_of(type);
  const BlockPartition part(count, n);
  const std::size_t seg = segment_elements(part.max_size(), es, s.options.segment_bytes, mem.max_segment_bytes());
  const auto nseg = [&](int b) { return (part.size(b) + seg - 1) / seg; };
  const auto seg_len = [&](int b, std::size_t j) { return std::min(seg, part.size(b) - j * seg); };
  const int tag_rs = s.options.tag + 4;
  const int tag_ag = s.options.tag + 5;
  const auto* in = static_cast<const std::byte*>(send);
  auto* out_base = static_cast<std::byte*>(recv);
  const std::size_t mine = part.size(rank);
  // Spans name the round: 0 reduces (or gathers, for AllGather), 1 gathers
  // what AllReduce reduced.
  Tracer* const tr = s.options.tracer;
  const std::int64_t peers = n - 1;
  const std::size_t others = count - mine;  // elements of every block but this rank's

  // Receives every other block, segment by segment, straight into `full`.
  const auto post_gather_recvs = [&](std::byte* full) {
    for (int p = 1; p < n; ++p) {
      const int src = (rank - p + n) % n;
      for (std::size_t j = 0; j < nseg(src); ++j)
        s.ag_recvs.push_back(t.irecv(full + (part.offset(src) + j * seg) * es, seg_len(src, j) * es, src, tag_ag));
    }
  };
  // Sends segment j of this rank's block of `full` to every other rank.
  const auto send_gather_segment = [&](const std::byte* full, std::size_t j) {
    const std::byte* p0 = full + (part.offset(rank) + j * seg) * es;
    for (int p = 1; p < n; ++p)
      s.ag_sends.push_back(t.isend(p0, seg_len(rank, j) * es, (rank + p) % n, tag_ag));
  };

  if (n == 1) {
    mem.copy(recv, send, count * es);  // no-op in place
    if (op == ReduceOp::Avg && kind_ != CollectiveKind::AllGather) mem.divide(recv, count, type, n);
    mem.synchronize();
    return;
  }

  if (kind_ == CollectiveKind::AllGather) {
    mem.copy(out_base + part.offset(rank) * es, send, mine * es);  // no-op in place
    post_gather_recvs(out_base);
    {
      TraceSpan span(tr, "send", "comm", {{"round", 0}, {"bytes", mine * es * peers}, {"segments", nseg(rank)}, {"peers", peers}});
      for (std::size_t j = 0; j < nseg(rank); ++j) send_gather_segment(out_base, j);
    }
    {
      TraceSpan span(tr, "recv", "wait", {{"round", 0}, {"bytes", others * es}, {"peers", peers}});
      wait_all_politely(s.ag_recvs, s.transport.wait_policy());
    }
    TraceSpan span(tr, "wait send", "wait", {{"round", 0}, {"bytes", mine * es * peers}, {"peers", peers}});
    wait_all_politely(s.ag_sends, s.transport.wait_policy());
    mem.synchronize();
    return;
  }

  const bool all_reduce = kind_ == CollectiveKind::AllReduce;
  const std::byte* own = in + part.offset(rank) * es;
  std::byte* out = all_reduce ? out_base + part.offset(rank) * es : out_base;
  const bool in_place = all_reduce ? send == recv : own == recv;

  // Every segment's receives are posted before the first is waited for, each
  // into its own slot: a segment past the eager limit waits for the
  // receiver's answer to its rendezvous, and a receive posted only when the
  // one before it completed answers late, behind this rank's own sends on
  // the same connection (the ring reduce-scatter met the same). It costs a
  // slot per peer and segment: the size of the input.
  const std::size_t slot_bytes = seg * es;
  const std::size_t my_segs = nseg(rank);
  const std::size_t un = static_cast<std::size_t>(n);
  auto* slots = static_cast<std::byte*>(s.slots.get(mem, std::max<std::size_t>(my_segs, 1) * un * slot_bytes));
  const auto slot = [&](std::size_t j, int p) {
    return slots + (j * un + static_cast<std::size_t>(p)) * slot_bytes;
  };
  s.rs_recvs.resize(my_segs);
  for (std::size_t j = 0; j < my_segs; ++j)
    for (int p = 1; p < n; ++p) {
      const int src = (rank - p + n) % n;
      s.rs_recvs[j].push_back(t.irecv(slot(j, src), seg_len(rank, j) * es, src, tag_rs));
    }
  // Every segment of every other rank's block leaves at once; the peers pull
  // them as they post their receives.
  {
    TraceSpan span(tr, "send", "comm", {{"round", 0}, {"bytes", others * es}, {"peers", peers}});
    for (int p = 1; p < n; ++p) {
      const int dst = (rank + p) % n;
      for (std::size_t j = 0; j < nseg(dst); ++j)
        s.rs_sends.push_back(t.isend(in + (part.offset(dst) + j * seg) * es, seg_len(dst, j) * es, dst, tag_rs));
    }
  }
  // Out of place, the gathered blocks land where nothing else touches.
  if (all_reduce && !in_place) post_gather_recvs(out_base);

  for (std::size_t j = 0; j < my_segs; ++j) {
    const std::size_t len = seg_len(rank, j);
    {
      TraceSpan span(tr, "recv", "wait", {{"round", 0}, {"segment", j}, {"bytes", len * es * peers}, {"peers", peers}});
      wait_all_politely(s.rs_recvs[j], s.transport.wait_policy());
    }
    std::byte* o = out + j * seg * es;
    const std::byte* first = own + j * seg * es;
    {
      TraceSpan span(tr, "reduce", "compute", {{"round", 0}, {"segment", j}, {"bytes", len * es * peers}});
      for (int p = 1; p < n; ++p) {
        const int src = (rank + p) % n;
        mem.reduce(o, p == 1 ? first : o, slot(j, src), len, type, op);
      }
    }
    if (all_reduce) {
      TraceSpan span(tr, "send", "comm", {{"round", 1}, {"segment", j}, {"bytes", len * es * peers}, {"peers", peers}});
      // A device reduction is queued on a stream: finish it before sending.
      if (mem.space() == MemorySpace::Device) mem.synchronize();
      send_gather_segment(out_base, j);
    }
  }
  {
    TraceSpan span(tr, "wait send", "wait", {{"round", 0}, {"bytes", others * es}, {"peers", peers}});
    wait_all_politely(s.rs_sends, s.transport.wait_policy());
  }
  if (all_reduce) {
    // In place, the other blocks are our sends' buffers until those complete.
    if (in_place) post_gather_recvs(out_base);
    {
      TraceSpan span(tr, "recv", "wait", {{"round", 1}, {"bytes", others * es}, {"peers", peers}});
      wait_all_politely(s.ag_recvs, s.transport.wait_policy());
    }
    TraceSpan span(tr, "wait send", "wait", {{"round", 1}, {"bytes", mine * es * peers}, {"peers", peers}});
    wait_all_politely(s.ag_sends, s.transport.wait_policy());
  }
  if (op == ReduceOp::Avg) mem.divide(recv, all_reduce ? count : mine, type, n);
  mem.synchronize();
}

}  // namespace shardroof::coll
