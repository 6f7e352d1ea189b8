// Host buffers and the host's copy and reduction in the simulated build
// (SHARDROOF_SMPI); host_memory.cpp has the ordinary ones.
//
// Buffers: every rank of a simulated cluster lives in this one process, so
// 1,024 ranks with a few MiB each would not fit. A buffer goes through
// SMPI's allocator, which hands out memory shared by all ranks (the same
// physical pages, whatever they write) from the size set by
// smpi/auto-shared-malloc-thresh, and private memory below it (or with the
// option unset). Data in a shared buffer is meaningless, so a run whose
// buffers are shared cannot check its results: scripts/simulate.sh sets
// the threshold and turns checking off together, and says so.
//
// Copies and reductions do the real work (so a run with private buffers
// checks its results). Where the platform injects the cost of local work
// (simulated_host.h) a reduction charges the time the preset's memory takes
// to move its bytes (two operands read, one written); a copy charges
// nothing, as the cost model's c = 0 for a preset. A charge is a simulated
// execution, which lets the other ranks run: a copy that charged would let
// every rank hold the private staging buffer it copies from at once (the
// sweep's ceilings stage each operand on the host: 16 GB on 1,024 ranks).
//
// Segments: the largest automatic segment is this machine's (a quarter of
// its L2 cache, as host_memory.cpp has it) unless the platform says what
// its ranks' memory takes (shardroof/segment_bytes: scripts/simulate.sh
// gives a preset's ranks the 1 MiB of device memory, MemoryOps' default),
// so a simulated GPU does not segment by the cache of the machine that
// simulates it.
#include <mpi.h>

#include <cstdlib>
#include <cstring>

#include "collectives/memory.h"
#include "collectives/segments.h"
#include "collectives/simulated_host.h"

namespace shardroof::coll {

namespace {
void charge_memory_traffic(double bytes) {
  if (const auto rate = sim::injected_memory_bytes_per_s()) sim::charge_seconds(bytes / *rate);
}
}  // namespace

HostAllocation::HostAllocation(std::size_t bytes) : bytes_(bytes), alignment_(alignof(std::max_align_t)) {
  // Never a zero-sized allocation, so data() is a valid pointer even for 0 bytes.
  data_ = static_cast<std::byte*>(smpi_shared_malloc_intercept(bytes > 0 ? bytes : 1, __FILE__, __LINE__));
  if (data_ == nullptr) throw std::bad_alloc();
}

HostAllocation::~HostAllocation() { smpi_shared_free(data_); }

std::unique_ptr<Allocation> HostMemoryOps::allocate(std::size_t bytes) {
  return std::make_unique<HostAllocation>(bytes);
}

void HostMemoryOps::copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes > 0 && dst != src) std::memmove(dst, src, bytes);
}

std::size_t HostMemoryOps::max_segment_bytes() const {
  const std::string text = sim::host_property("shardroof/segment_bytes");
  char* end = nullptr;
  const unsigned long long bytes = std::strtoull(text.c_str(), &end, 10);
  if (!text.empty() && *end == '\0' && bytes > 0) return static_cast<std::size_t>(bytes);
  return host_segment_cap_bytes();
}

void HostMemoryOps::reduce(void* dst, const void* a, const void* b, std::size_t count,
                           DataType type, ReduceOp op) {
  host_reduce(dst, a, b, count, type, op);
  charge_memory_traffic(3.0 * static_cast<double>(count) * static_cast<double>(size_of(type)));
}

}  // namespace shardroof::coll
