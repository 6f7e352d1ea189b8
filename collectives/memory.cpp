#include "collectives/memory.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>

#include "collectives/half.h"
#include "collectives/reduce_kernels.h"

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
