// The matmul's operands, reproducible on every rank from a seed: X[B, D] and
// Y[D, F] hold k/64 with k in ±[1, 64] chosen by a hash of (seed, matrix,
// row, column). No value is zero, every value is exact in bfloat16, and any
// rank can rebuild any element, so the reference for the check needs no
// communication.
#pragma once

#include <cstddef>
#include <cstdint>

#include "collectives/types.h"
#include "sweep/plan.h"

namespace shardroof::sweep {

enum class Operand : std::uint64_t { X = 1, Y = 2, Probe = 3 };

double operand_value(std::uint64_t seed, Operand which, std::uint64_t row, std::uint64_t col);

// Writes X[:, shard] (B x shard.size, row-major) in `type` to `dst`.
void fill_x_shard(void* dst, coll::DataType type, std::uint64_t seed, std::size_t B, Shard shard);
// Writes Y[shard, :] (shard.size x F, row-major) in `type` to `dst`.
void fill_y_shard(void* dst, coll::DataType type, std::uint64_t seed, std::size_t F, Shard shard);

// With --sharding fsdp: rows [first, first + rows) of X, all D columns
// (rows x D, row-major), and elements [first, first + count) of the
// row-major D x F weight Y (a rank's block of it, as the AllGather holds it).
void fill_x_rows(void* dst, coll::DataType type, std::uint64_t seed, std::size_t D, std::size_t first,
                 std::size_t rows);
void fill_y_elements(void* dst, coll::DataType type, std::uint64_t seed, std::size_t F, std::size_t first,
                     std::size_t count);

// Element i of a host buffer of `type`, as a double.
double element_value(const void* data, coll::DataType type, std::size_t i);

}  // namespace shardroof::sweep
