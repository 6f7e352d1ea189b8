#include "collectives/memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <new>

#include "collectives/half.h"
#include "collectives/reduce_kernels.h"
#include "collectives/segments.h"

namespace shardroof::coll {

std::string_view to_string(MemorySpace space) {
  return space == MemorySpace::Host ? "host" : "device";
}

std::size_t transparent_huge_page_bytes() {
  static const std::size_t bytes = [] {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
    std::size_t b = 0;
    if (!(in >> b) || b == 0 || (b & (b - 1)) != 0) return std::size_t{0};
    return b;
  }();
  return bytes;
}

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

void HostMemoryOps::reduce(void* dst, const void* a, const void* b, std::size_t count,
                           DataType type, ReduceOp op) {
  host_reduce(dst, a, b, count, type, op);
}

std::size_t HostMemoryOps::max_segment_bytes() const { return host_segment_cap_bytes(); }

void HostMemoryOps::divide(void* buf, std::size_t count, DataType type, int divisor) {
  host_divide(buf, count, type, divisor);
}

namespace {

struct SumOp {
  template <class T>
  T operator()(T x, T y) const { return x + y; }
};
struct ProdOp {
  template <class T>
  T operator()(T x, T y) const { return x * y; }
};
struct MaxOp {
  template <class T>
  T operator()(T x, T y) const { return std::max(x, y); }
};
struct MinOp {
  template <class T>
  T operator()(T x, T y) const { return std::min(x, y); }
};

// Plain loops over restrict-free pointers; the compiler vectorises them when
// dst does not alias, and they stay correct when it does (element-wise).
template <class T, class Op>
void reduce_native(void* dst, const void* a, const void* b, std::size_t n) {
  auto* d = static_cast<T*>(dst);
  const auto* x = static_cast<const T*>(a);
  const auto* y = static_cast<const T*>(b);
  const Op op;
  for (std::size_t i = 0; i < n; ++i) d[i] = op(x[i], y[i]);
}

template <float (*ToFloat)(std::uint16_t), std::uint16_t (*FromFloat)(float), class Op>
void reduce_16(void* dst, const void* a, const void* b, std::size_t n) {
  auto* d = static_cast<std::uint16_t*>(dst);
  const auto* x = static_cast<const std::uint16_t*>(a);
  const auto* y = static_cast<const std::uint16_t*>(b);
  const Op op;
  for (std::size_t i = 0; i < n; ++i) d[i] = FromFloat(op(ToFloat(x[i]), ToFloat(y[i])));
}

template <class Op>
void reduce_typed(void* dst, const void* a, const void* b, std::size_t n, DataType type) {
  switch (type) {
    case DataType::Float: return reduce_native<float, Op>(dst, a, b, n);
    case DataType::Double: return reduce_native<double, Op>(dst, a, b, n);
    case DataType::Int32: return reduce_native<std::int32_t, Op>(dst, a, b, n);
    case DataType::BFloat16: return reduce_16<bf16_to_float, float_to_bf16, Op>(dst, a, b, n);
    case DataType::Half: return reduce_16<half_to_float, float_to_half, Op>(dst, a, b, n);
  }
}

}  // namespace

namespace detail {

void reduce_16bit_portable(void* dst, const void* a, const void* b, std::size_t n, DataType type,
                           ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return reduce_typed<SumOp>(dst, a, b, n, type);
    case ReduceOp::Prod: return reduce_typed<ProdOp>(dst, a, b, n, type);
    case ReduceOp::Max: return reduce_typed<MaxOp>(dst, a, b, n, type);
    case ReduceOp::Min: return reduce_typed<MinOp>(dst, a, b, n, type);
  }
}

}  // namespace detail

void host_reduce(void* dst, const void* a, const void* b, std::size_t count, DataType type,
                 ReduceOp op) {
  if (count == 0) return;
  if (type == DataType::BFloat16 || type == DataType::Half) {
    if (detail::have_avx2_f16c()) return detail::reduce_16bit_avx2(dst, a, b, count, type, op);
    return detail::reduce_16bit_portable(dst, a, b, count, type, op);
  }
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return reduce_typed<SumOp>(dst, a, b, count, type);
    case ReduceOp::Prod: return reduce_typed<ProdOp>(dst, a, b, count, type);
    case ReduceOp::Max: return reduce_typed<MaxOp>(dst, a, b, count, type);
    case ReduceOp::Min: return reduce_typed<MinOp>(dst, a, b, count, type);
  }
}

void host_divide(void* buf, std::size_t count, DataType type, int divisor) {
  switch (type) {
    case DataType::Float: {
      auto* p = static_cast<float*>(buf);
      for (std::size_t i = 0; i < count; ++i) p[i] /= static_cast<float>(divisor);
      return;
    }
    case DataType::Double: {
      auto* p = static_cast<double*>(buf);
      for (std::size_t i = 0; i < count; ++i) p[i] /= divisor;
      return;
    }
    case DataType::Int32: {
      auto* p = static_cast<std::int32_t*>(buf);
      for (std::size_t i = 0; i < count; ++i) p[i] /= divisor;
      return;
    }
    case DataType::BFloat16: {
      auto* p = static_cast<std::uint16_t*>(buf);
      for (std::size_t i = 0; i < count; ++i)
        p[i] = float_to_bf16(bf16_to_float(p[i]) / static_cast<float>(divisor));
      return;
    }
    case DataType::Half: {
      auto* p = static_cast<std::uint16_t*>(buf);
      for (std::size_t i = 0; i < count; ++i)
        p[i] = float_to_half(half_to_float(p[i]) / static_cast<float>(divisor));
      return;
    }
  }
}

}  // namespace shardroof::coll
