// Host buffers and the host's copy and reduction, as every build but the
// simulated one has them (host_memory_smpi.cpp is that build's).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <limits>
#include <new>

#include "collectives/memory.h"
#include "collectives/segments.h"

namespace shardroof::coll {

namespace {
std::size_t base_page_bytes() {
  static const std::size_t bytes = [] {
    const long b = sysconf(_SC_PAGESIZE);
    return b > 0 ? static_cast<std::size_t>(b) : std::size_t{4096};
  }();
  return bytes;
}
}  // namespace

HostAllocation::HostAllocation(std::size_t bytes) : bytes_(bytes), alignment_(alignof(std::max_align_t)) {
  const std::size_t huge = transparent_huge_page_bytes();
  // Never a zero-sized allocation, so data() is a valid pointer even for 0 bytes.
  std::size_t reserved = bytes > 0 ? bytes : 1;
  if (huge > 0 && bytes > base_page_bytes() && bytes <= std::numeric_limits<std::size_t>::max() - huge) {
    alignment_ = huge;
    reserved = (bytes + huge - 1) / huge * huge;
  }
  data_ = static_cast<std::byte*>(::operator new(reserved, std::align_val_t{alignment_}));
  if (alignment_ == huge) madvise(data_, reserved, MADV_HUGEPAGE);  // advice only: failure is harmless
}

HostAllocation::~HostAllocation() { ::operator delete(data_, std::align_val_t{alignment_}); }

std::unique_ptr<Allocation> HostMemoryOps::allocate(std::size_t bytes) {
  return std::make_unique<HostAllocation>(bytes);
}

void HostMemoryOps::copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes > 0 && dst != src) std::memmove(dst, src, bytes);
}

std::size_t HostMemoryOps::max_segment_bytes() const { return host_segment_cap_bytes(); }

void HostMemoryOps::reduce(void* dst, const void* a, const void* b, std::size_t count,
                           DataType type, ReduceOp op) {
  host_reduce(dst, a, b, count, type, op);
}

}  // namespace shardroof::coll
