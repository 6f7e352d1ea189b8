// The check of the distributed product Z = X @ Y (README, "shardroof sweep"). Each rank
// checks the elements of Z it holds against a reference it rebuilds from the
// seed: the full product for small shapes, otherwise a randomized Freivalds
// check per row, sum_f Z[b,f] v[f] against sum_d X[b,d] (Y v)[d] with a
// random ±1 vector v. The tolerance is a rounding-error bound for the
// datatype (4*sqrt of the GEMM's inner length, plus the N-way reduction;
// bfloat16 adds one rounding of the result per reduction step).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "collectives/types.h"

namespace shardroof::sweep {

// Up to this many multiply-adds (B*D*F) the full product is the reference.
inline constexpr double kFullReferenceMacs = 1 << 24;

struct LocalCheck {
  std::string method;      // "full" or "freivalds"
  long long wrong = 0;     // elements (full) or rows (freivalds) outside tolerance
  long long tested = 0;    // elements or rows compared
  double worst_ratio = 0;  // max |error| / tolerance (< 1 passes)
};

// Checks elements [first, first + count) of the row-major B x F product
// held in `z` (host memory, `type`), for operands made with `seed`.
LocalCheck check_product_block(const void* z, coll::DataType type, std::uint64_t seed, std::size_t B,
                               std::size_t D, std::size_t F, std::size_t first, std::size_t count,
                               int ranks);

// The same where Y was made with a seed of its own (`y_seed`; the fsdp
// case's layers each have their weights).
LocalCheck check_product_block(const void* z, coll::DataType type, std::uint64_t x_seed, std::uint64_t y_seed,
                               std::size_t B, std::size_t D, std::size_t F, std::size_t first, std::size_t count,
                               int ranks);

// The whole D x F weight an AllGather left in `w` (host memory, `type`)
// against the one made with `seed`: every element, exactly (the operands'
// values are exact in every datatype, and a gather only moves them).
LocalCheck check_gathered_weight(const void* w, coll::DataType type, std::uint64_t seed, std::size_t D,
                                 std::size_t F);

// Unit roundoff of the product in `type` for an inner length `k` summed
// over `ranks` partial sums, relative to sum |x||y|.
double product_tolerance(coll::DataType type, std::size_t k, int ranks);

}  // namespace shardroof::sweep
