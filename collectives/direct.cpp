#include "collectives/direct.h"

#include <cstdint>
#include <vector>

#include "collectives/blocks.h"
#include "collectives/error.h"
#include "collectives/ring_detail.h"

namespace shardroof::coll {

class DirectCollective::Impl {
 public:
  Impl(Transport& t, MemoryOps& m, CollectiveOptions o) : transport(t), memory(m), options(o) {}
  Transport& transport;
  MemoryOps& memory;
  CollectiveOptions options;
  detail::ScratchPool slots;
  std::vector<RequestPtr> recvs;
  std::vector<RequestPtr> sends;
};

DirectCollective::DirectCollective(CollectiveKind kind, Transport& transport, MemoryOps& memory,
                                   CollectiveOptions options)
    : kind_(kind), impl_(std::make_unique<Impl>(transport, memory, options)) {
  if (kind != CollectiveKind::AllReduce && kind != CollectiveKind::ReduceScatter)
    throw InvalidArgument("the direct algorithm has no " + std::string(to_string(kind)));
}

DirectCollective::~DirectCollective() = default;

void DirectCollective::run(const void* send, void* recv, std::size_t count, DataType type,
                           ReduceOp op) {
  Impl& s = *impl_;
  Transport& t = s.transport;
  MemoryOps& mem = s.memory;
  const int n = t.size();
  const int rank = t.rank();
  const std::size_t es = size_of(type);
  const BlockPartition part(count, n);
  const bool all_reduce = kind_ == CollectiveKind::AllReduce;
  // Elements of the result on this rank, and where a peer's share starts.
  const std::size_t mine = all_reduce ? count : part.size(rank);
  const auto* in = static_cast<const std::byte*>(send);
  const std::byte* own = all_reduce ? in : in + part.offset(rank) * es;
  const bool in_place = own == recv;
  Tracer* const tr = s.options.tracer;
  const std::int64_t peers = n - 1;

  if (n == 1 || mine == 0) {
    // One rank, or nothing arrives here; peers may still need our blocks.
    if (n > 1) {
      {
        TraceSpan span(tr, "send", "comm", {{"bytes", (count - mine) * es}, {"peers", peers}});
        for (int p = 1; p < n; ++p) {
          const int dst = (rank + p) % n;
          const std::size_t len = all_reduce ? count : part.size(dst);
          if (len > 0) s.sends.push_back(t.isend(all_reduce ? in : in + part.offset(dst) * es, len * es, dst, s.options.tag + 2));
        }
      }
      TraceSpan span(tr, "wait send", "wait", {{"peers", peers}});
      wait_all(s.sends);
    } else {
      mem.copy(recv, send, mine * es);
    }
    if (op == ReduceOp::Avg && mine > 0) mem.divide(recv, mine, type, n);
    mem.synchronize();
    return;
  }

  const std::size_t slot_bytes = mine * es;
  auto* slots = static_cast<std::byte*>(s.slots.get(mem, static_cast<std::size_t>(n) * slot_bytes));
  const auto slot = [&](int r) { return slots + static_cast<std::size_t>(r) * slot_bytes; };
  const int tag = s.options.tag + 2;
  // Sends first: a transport that copies on the receiving side inside
  // whichever call matches a message (Open MPI's CMA over shared memory)
  // would otherwise make a rank that arrives late copy its peers' data
  // inside irecv before its own sends leave, and the peers wait that long.
  {
    TraceSpan span(tr, "send", "comm",
                   {{"bytes", (all_reduce ? count * static_cast<std::size_t>(peers) : count - mine) * es}, {"peers", peers}});
    for (int p = 1; p < n; ++p) {
      const int dst = (rank + p) % n;
      const std::size_t len = all_reduce ? count : part.size(dst);
      if (len == 0) continue;  // that peer expects nothing
      s.sends.push_back(t.isend(all_reduce ? in : in + part.offset(dst) * es, len * es, dst, tag));
    }
  }
  for (int p = 1; p < n; ++p) {
    const int src = (rank - p + n) % n;
    s.recvs.push_back(t.irecv(slot(src), slot_bytes, src, tag));
  }
  // In place, the output overwrites this rank's contribution before the
  // rank-order reduction reaches it (unless it is one of the first two).
  const std::byte* mine_src = own;
  if (in_place && rank >= 2) {
    mem.copy(slot(rank), own, slot_bytes);
    mine_src = slot(rank);
  }
  {
    TraceSpan span(tr, "recv", "wait", {{"bytes", slot_bytes * peers}, {"peers", peers}});
    wait_all(s.recvs);
  }
  // In place, AllReduce's peers read the output buffer until their receives
  // complete; ReduceScatter's read other blocks only.
  if (in_place && all_reduce) {
    TraceSpan span(tr, "wait send", "wait", {{"peers", peers}});
    wait_all(s.sends);
  }
  const auto contribution = [&](int r) -> const std::byte* { return r == rank ? mine_src : slot(r); };
  auto* out = static_cast<std::byte*>(recv);
  {
    TraceSpan span(tr, "reduce", "compute", {{"bytes", slot_bytes * peers}});
    mem.reduce(out, contribution(0), contribution(1), mine, type, op);
    for (int r = 2; r < n; ++r) mem.reduce(out, out, contribution(r), mine, type, op);
  }
  {
    TraceSpan span(tr, "wait send", "wait", {{"peers", peers}});
    wait_all(s.sends);
  }
  if (op == ReduceOp::Avg) mem.divide(recv, mine, type, n);
  mem.synchronize();
}

}  // namespace shardroof::coll
