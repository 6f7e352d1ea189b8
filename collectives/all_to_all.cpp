#include "collectives/all_to_all.h"

#include <cstdint>

#include "collectives/blocks.h"
#include "collectives/trace.h"

namespace shardroof::coll {

PairwiseAllToAll::PairwiseAllToAll(Transport& transport, MemoryOps& memory, CollectiveOptions options)
    : transport_(transport), memory_(memory), options_(options) {}

PairwiseAllToAll::~PairwiseAllToAll() = default;

void PairwiseAllToAll::run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp /*op*/) {
  Transport& t = transport_;
  const int n = t.size();
  const int rank = t.rank();
  const std::size_t es = size_of(type);
  const BlockPartition part(count, n);
  const std::size_t mine = part.size(rank);  // elements of every block this rank receives
  auto* out = static_cast<std::byte*>(recv);
  const auto* in = static_cast<const std::byte*>(send);
  if (send == recv && count > 0) {
    if (!scratch_ || scratch_->bytes() < count * es) scratch_ = memory_.allocate(count * es);
    memory_.copy(scratch_->data(), send, count * es);
    in = static_cast<const std::byte*>(scratch_->data());
  }
  memory_.copy(out + static_cast<std::size_t>(rank) * mine * es, in + part.offset(rank) * es, mine * es);
  const int tag = options_.tag + 7;
  Tracer* const tr = options_.tracer;
  for (int k = 1; k < n; ++k) {
    const int dst = (rank + k) % n;
    const int src = (rank - k + n) % n;
    const std::size_t send_bytes = part.size(dst) * es;
    const std::size_t recv_bytes = mine * es;
    TraceSpan step(tr, "all-to-all step", "step",
                   {{"step", k - 1}, {"bytes_sent", send_bytes}, {"bytes_received", recv_bytes}, {"to", dst},
                    {"from", src}});
    auto r = t.irecv(out + static_cast<std::size_t>(src) * recv_bytes, recv_bytes, src, tag);
    RequestPtr s;
    {
      TraceSpan span(tr, "send", "comm", {{"step", k - 1}, {"bytes", send_bytes}, {"to", dst}});
      s = t.isend(in + part.offset(dst) * es, send_bytes, dst, tag);
    }
    {
      TraceSpan span(tr, "recv", "wait", {{"step", k - 1}, {"bytes", recv_bytes}, {"from", src}});
      r->wait();
    }
    TraceSpan span(tr, "wait send", "wait", {{"step", k - 1}, {"bytes", send_bytes}, {"to", dst}});
    s->wait();
  }
  memory_.synchronize();
}

}  // namespace shardroof::coll
