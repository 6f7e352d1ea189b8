// Rank- and index-dependent test data whose reductions are exact in every
// datatype, and the expected results, so a collective's output can be
// compared bit for bit. Used by `shardroof coll` and by the tests.
//
// Sum/avg: small integers, bounded so the sum over all ranks stays exact
// (256 for bfloat16, 2048 for half). Prod: 1 or 2, a few 2s per element.
// Max/min: integers that differ by rank and index.
#pragma once

#include <cstddef>

#include "collectives/collective.h"
#include "collectives/traits.h"
#include "collectives/types.h"

namespace shardroof::coll {

// The value rank `rank` contributes at global index `index`.
double pattern_value(std::size_t index, int rank, int nranks, DataType type, ReduceOp op);
// The exact reduction over all ranks at `index`, rounded to `type` as the
// collectives round it.
double expected_value(std::size_t index, int nranks, DataType type, ReduceOp op);

// Fill `count` host elements with rank's contribution for indices
// first_index, first_index+1, ...
void fill_pattern(void* host, std::size_t count, std::size_t first_index, int rank, int nranks,
                  DataType type, ReduceOp op);

// Number of elements of `host`, this rank's whole output of `kind` (the
// traits' output_count(at) elements), that differ from the traits' expected
// values for inputs made by fill_pattern.
std::size_t count_wrong(const void* host, const CallShape& at, CollectiveKind kind, DataType type, ReduceOp op);

// Read / write element i of a host buffer as double.
double load_as_double(const void* host, std::size_t i, DataType type);
void store_from_double(void* host, std::size_t i, double value, DataType type);

}  // namespace shardroof::coll
