#include "collectives/check_pattern.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "collectives/half.h"

namespace shardroof::coll {
namespace {

// Largest magnitude below which every integer is exact in the type.
double exact_limit(DataType type) {
  switch (type) {
    case DataType::BFloat16: return 256;
    case DataType::Half: return 2048;
    case DataType::Float: return 16777216;
    case DataType::Double: return 9007199254740992.0;
    case DataType::Int32: return 2147483647.0;
  }
  return 1;
}

double round_to(double v, DataType type) {
  switch (type) {
    case DataType::Float: return static_cast<float>(v);
    case DataType::Double: return v;
    case DataType::Int32: return static_cast<double>(static_cast<std::int32_t>(v));
    case DataType::BFloat16: return bf16_to_float(float_to_bf16(static_cast<float>(v)));
    case DataType::Half: return half_to_float(float_to_half(static_cast<float>(v)));
  }
  return v;
}

}  // namespace

double pattern_value(std::size_t index, int rank, int nranks, DataType type, ReduceOp op) {
  const auto r = static_cast<std::size_t>(rank);
  switch (op) {
    case ReduceOp::Prod: return (index + r) % 4 == 0 ? 2.0 : 1.0;
    case ReduceOp::Max:
    case ReduceOp::Min: {
      const double span = std::min(exact_limit(type), 100.0);
      return static_cast<double>((index * 131 + r * 17) % static_cast<std::size_t>(span));
    }
    case ReduceOp::Sum:
    case ReduceOp::Avg: {
      const double per_rank = std::max(1.0, std::min(64.0, exact_limit(type) / std::max(nranks, 1)));
      return 1.0 + static_cast<double>((index * 131 + r * 17) % static_cast<std::size_t>(per_rank));
    }
  }
  return 0;
}

double expected_value(std::size_t index, int nranks, DataType type, ReduceOp op) {
  double acc = pattern_value(index, 0, nranks, type, op);
  for (int r = 1; r < nranks; ++r) {
    const double v = pattern_value(index, r, nranks, type, op);
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Avg: acc += v; break;
      case ReduceOp::Prod: acc *= v; break;
      case ReduceOp::Max: acc = std::max(acc, v); break;
      case ReduceOp::Min: acc = std::min(acc, v); break;
    }
  }
  if (op == ReduceOp::Avg) {
    // The collectives divide once in the element's own precision.
    switch (type) {
      case DataType::Int32:
        return static_cast<double>(static_cast<std::int32_t>(acc) / nranks);
      case DataType::Double: return acc / nranks;
      default: return round_to(static_cast<float>(acc) / static_cast<float>(nranks), type);
    }
  }
  return round_to(acc, type);
}

double load_as_double(const void* host, std::size_t i, DataType type) {
  switch (type) {
    case DataType::Float: return static_cast<const float*>(host)[i];
    case DataType::Double: return static_cast<const double*>(host)[i];
    case DataType::Int32: return static_cast<const std::int32_t*>(host)[i];
    case DataType::BFloat16: return bf16_to_float(static_cast<const std::uint16_t*>(host)[i]);
    case DataType::Half: return half_to_float(static_cast<const std::uint16_t*>(host)[i]);
  }
  return 0;
}

void store_from_double(void* host, std::size_t i, double value, DataType type) {
  switch (type) {
    case DataType::Float: static_cast<float*>(host)[i] = static_cast<float>(value); return;
    case DataType::Double: static_cast<double*>(host)[i] = value; return;
    case DataType::Int32: static_cast<std::int32_t*>(host)[i] = static_cast<std::int32_t>(value); return;
    case DataType::BFloat16:
      static_cast<std::uint16_t*>(host)[i] = float_to_bf16(static_cast<float>(value));
      return;
    case DataType::Half:
      static_cast<std::uint16_t*>(host)[i] = float_to_half(static_cast<float>(value));
      return;
  }
}

void fill_pattern(void* host, std::size_t count, std::size_t first_index, int rank, int nranks,
                  DataType type, ReduceOp op) {
  for (std::size_t i = 0; i < count; ++i)
    store_from_double(host, i, pattern_value(first_index + i, rank, nranks, type, op), type);
}

std::size_t count_wrong(const void* host, const CallShape& at, CollectiveKind kind, DataType type, ReduceOp op) {
  const CollectiveTraits& t = traits(kind);
  const std::size_t count = t.output_count(at);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i) {
    // Bitwise-exact values are expected; != also catches NaN.
    if (!(load_as_double(host, i, type) == t.expected(i, at, type, op))) ++wrong;
  }
  return wrong;
}

}  // namespace shardroof::coll
