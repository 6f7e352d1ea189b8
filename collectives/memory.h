// Where a collective's buffers live and how an algorithm touches them. Ring
// algorithms never dereference user buffers themselves: they go through a
// MemoryOps, so the same algorithm runs on host memory (HostMemoryOps) and on
// device memory (the CUDA backend's implementation).
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "collectives/types.h"

namespace shardroof::coll {

enum class MemorySpace { Host, Device };

std::string_view to_string(MemorySpace space);

// An owned allocation in some memory space; freed on destruction.
class Allocation {
 public:
  virtual ~Allocation() = default;
  virtual void* data() = 0;
  virtual std::size_t bytes() const = 0;
};

class MemoryOps {
 public:
  virtual ~MemoryOps() = default;
  virtual MemorySpace space() const = 0;
  virtual std::unique_ptr<Allocation> allocate(std::size_t bytes) = 0;
  virtual void copy(void* dst, const void* src, std::size_t bytes) = 0;
  // dst[i] = a[i] op b[i]; dst may alias a or b. bfloat16 and half are
  // computed in float and rounded once. Avg reduces as Sum (see finish_avg).
  virtual void reduce(void* dst, const void* a, const void* b, std::size_t count, DataType type,
                      ReduceOp op) = 0;
  // buf[i] /= divisor, the last step of an Avg reduction.
  virtual void divide(void* buf, std::size_t count, DataType type, int divisor) = 0;
  // Wait for queued work on this memory (device streams); no-op on the host.
  virtual void synchronize() {}
  // The largest automatic segment of the segmented algorithms
  // (collectives/segments.h). By default 1 MiB, enough for a copy and a
  // reduction kernel to overlap on a device; the host derives it from its
  // cache.
  virtual std::size_t max_segment_bytes() const { return std::size_t{1} << 20; }
};

// Host memory. An allocation larger than one base page is placed on
// transparent-huge-page boundaries, rounded up to whole huge pages and
// advised for them (MADV_HUGEPAGE): a single-copy transport between
// processes (Open MPI's CMA over shared memory) pins the sender's pages one
// at a time, and with 4 KiB pages that cost it about 3.5x in copy rate (15
// against 52 GB/s for 1 MiB on an AMD EPYC). A small allocation therefore
// takes a whole huge page. Where the kernel has no transparent huge pages
// the advice is ignored and the memory is ordinary. (In the simulated build
// the buffer comes from SMPI's allocator instead: host_memory_smpi.cpp.)
class HostAllocation final : public Allocation {
 public:
  explicit HostAllocation(std::size_t bytes);
  ~HostAllocation() override;
  HostAllocation(const HostAllocation&) = delete;
  HostAllocation& operator=(const HostAllocation&) = delete;
  void* data() override { return data_; }
  std::size_t bytes() const override { return bytes_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t bytes_;
  std::size_t alignment_;
};

// The transparent huge page size the kernel reports, or 0 where it has none.
std::size_t transparent_huge_page_bytes();

class HostMemoryOps final : public MemoryOps {
 public:
  MemorySpace space() const override { return MemorySpace::Host; }
  std::unique_ptr<Allocation> allocate(std::size_t bytes) override;
  void copy(void* dst, const void* src, std::size_t bytes) override;
  void reduce(void* dst, const void* a, const void* b, std::size_t count, DataType type,
              ReduceOp op) override;
  void divide(void* buf, std::size_t count, DataType type, int divisor) override;
  std::size_t max_segment_bytes() const override;
};

// The host reduction kernel itself, usable without a MemoryOps.
void host_reduce(void* dst, const void* a, const void* b, std::size_t count, DataType type,
                 ReduceOp op);
void host_divide(void* buf, std::size_t count, DataType type, int divisor);

}  // namespace shardroof::coll
