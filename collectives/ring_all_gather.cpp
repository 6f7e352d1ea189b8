#include "collectives/ring_all_gather.h"

#include <cstdint>

#include "collectives/blocks.h"

namespace shardroof::coll {

void ring_all_gather_in_place(Transport& transport, void* buf, std::size_t count,
                              std::size_t element_bytes, int tag, Tracer* tracer) {
  const int n = transport.size();
  const int rank = transport.rank();
  const BlockPartition part(count, n);
  auto* base = static_cast<std::byte*>(buf);
  const int next = (rank + 1) % n;
  const int prev = (rank + n - 1) % n;
  for (int step = 0; step < n - 1; ++step) {
    const int b_send = ((rank - step) % n + n) % n;
    const int b_recv = ((rank - step - 1) % n + n) % n;
    const std::size_t send_bytes = part.size(b_send) * element_bytes;
    const std::size_t recv_bytes = part.size(b_recv) * element_bytes;
    TraceSpan step_span(tracer, "all-gather step", "step",
                        {{"step", step}, {"bytes_sent", send_bytes}, {"bytes_received", recv_bytes},
                         {"to", next}, {"from", prev}});
    RequestPtr s;
    {
      TraceSpan span(tracer, "send", "comm", {{"step", step}, {"bytes", send_bytes}, {"segments", 1}, {"to", next}});
      s = transport.isend(base + part.offset(b_send) * element_bytes, send_bytes, next, tag);
    }
    auto r = transport.irecv(base + part.offset(b_recv) * element_bytes, recv_bytes, prev, tag);
    {
      TraceSpan span(tracer, "recv", "wait", {{"step", step}, {"bytes", recv_bytes}, {"from", prev}});
      r->wait();
    }
    TraceSpan span(tracer, "wait send", "wait", {{"step", step}, {"bytes", send_bytes}, {"to", next}});
    s->wait();
  }
}

RingAllGather::RingAllGather(Transport& transport, MemoryOps& memory, CollectiveOptions options)
    : transport_(transport), memory_(memory), options_(options) {}

void RingAllGather::run(const void* send, void* recv, std::size_t count, DataType type,
                        ReduceOp /*op*/) {
  const BlockPartition part(count, transport_.size());
  const std::size_t es = size_of(type);
  auto* own = static_cast<std::byte*>(recv) + part.offset(transport_.rank()) * es;
  memory_.copy(own, send, part.size(transport_.rank()) * es);  // no-op in place
  ring_all_gather_in_place(transport_, recv, count, es, options_.tag + 1, options_.tracer);
  memory_.synchronize();
}

}  // namespace shardroof::coll
