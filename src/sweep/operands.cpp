#include "sweep/operands.h"

#include <cstring>

#include "collectives/half.h"
#include "util/error.h"

namespace shardroof::sweep {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

void store(void* dst, coll::DataType type, std::size_t i, double v) {
  switch (type) {
    case coll::DataType::Float: static_cast<float*>(dst)[i] = static_cast<float>(v); return;
    case coll::DataType::Double: static_cast<double*>(dst)[i] = v; return;
    case coll::DataType::BFloat16:
      static_cast<std::uint16_t*>(dst)[i] = coll::float_to_bf16(static_cast<float>(v));
      return;
    case coll::DataType::Half:
      static_cast<std::uint16_t*>(dst)[i] = coll::float_to_half(static_cast<float>(v));
      return;
    case coll::DataType::Int32: break;
  }
  throw RuntimeError("sweep operands: unsupported datatype");
}

}  // namespace

double operand_value(std::uint64_t seed, Operand which, std::uint64_t row, std::uint64_t col) {
  const std::uint64_t h = splitmix64(splitmix64(seed ^ (static_cast<std::uint64_t>(which) << 56)) ^
                                     splitmix64(row * 0x9E3779B97F4A7C15ull + col));
  const double k = static_cast<double>((h >> 8) % 64 + 1);
  return (h & 1u) ? k / 64.0 : -k / 64.0;
}

void fill_x_shard(void* dst, coll::DataType type, std::uint64_t seed, std::size_t B, Shard shard) {
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t j = 0; j < shard.size; ++j)
      store(dst, type, b * shard.size + j, operand_value(seed, Operand::X, b, shard.offset + j));
}

void fill_y_shard(void* dst, coll::DataType type, std::uint64_t seed, std::size_t F, Shard shard) {
  for (std::size_t j = 0; j < shard.size; ++j)
    for (std::size_t f = 0; f < F; ++f)
      store(dst, type, j * F + f, operand_value(seed, Operand::Y, shard.offset + j, f));
}

void fill_x_rows(void* dst, coll::DataType type, std::uint64_t seed, std::size_t D, std::size_t first,
                 std::size_t rows) {
  for (std::size_t b = 0; b < rows; ++b)
    for (std::size_t d = 0; d < D; ++d) store(dst, type, b * D + d, operand_value(seed, Operand::X, first + b, d));
}

void fill_y_elements(void* dst, coll::DataType type, std::uint64_t seed, std::size_t F, std::size_t first,
                     std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    store(dst, type, i, operand_value(seed, Operand::Y, (first + i) / F, (first + i) % F));
}

double element_value(const void* data, coll::DataType type, std::size_t i) {
  switch (type) {
    case coll::DataType::Float: return static_cast<const float*>(data)[i];
    case coll::DataType::Double: return static_cast<const double*>(data)[i];
    case coll::DataType::BFloat16: return coll::bf16_to_float(static_cast<const std::uint16_t*>(data)[i]);
    case coll::DataType::Half: return coll::half_to_float(static_cast<const std::uint16_t*>(data)[i]);
    case coll::DataType::Int32: return static_cast<const std::int32_t*>(data)[i];
  }
  return 0;
}

}  // namespace shardroof::sweep
