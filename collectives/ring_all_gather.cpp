#include "collectives/ring_all_gather.h"

#include "collectives/blocks.h"

namespace shardroof::coll {

void ring_all_gather_in_place(Transport& transport, void* buf, std::size_t count,
                              std::size_t element_bytes, int tag) {
  const int n = transport.size();
  const int rank = transport.rank();
  const BlockPartition part(count, n);
  auto* base = static_cast<std::byte*>(buf);
  const int next = (rank + 1) % n;
  const int prev = (rank + n - 1) % n;
  for (int step = 0; step < n - 1; ++step) {
    const int b_send = ((rank - step) % n + n) % n;
    const int b_recv = ((rank - step - 1) % n + n) % n;
    auto r = transport.irecv(base + part.offset(b_recv) * element_bytes,
                             part.size(b_recv) * element_bytes, prev, tag);
    auto s = transport.isend(base + part.offset(b_send) * element_bytes,
                             part.size(b_send) * element_bytes, next, tag);
    r->wait();
    s->wait();
  }
}

RingAllGather::RingAllGather(Transport& transport, MemoryOps& memory, RingOptions options)
    : transport_(transport), memory_(memory), options_(options) {}

void RingAllGather::run(const void* send, void* recv, std::size_t count, DataType type,
                        ReduceOp /*op*/) {
  const BlockPartition part(count, transport_.size());
  const std::size_t es = size_of(type);
  auto* own = static_cast<std::byte*>(recv) + part.offset(transport_.rank()) * es;
  memory_.copy(own, send, part.size(transport_.rank()) * es);  // no-op in place
  ring_all_gather_in_place(transport_, recv, count, es, options_.tag + 1);
  memory_.synchronize();
}

}  // namespace shardroof::coll
