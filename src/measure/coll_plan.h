// What a `coll` plan measures and what that needs, checked before anything
// runs: the implementations --impl names, hier where the nodes allow it,
// the native collectives' int counts, and the memory per rank that
// measure_collectives allocates. Every function throws UsageError for a
// plan that cannot run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collectives/algorithms.h"
#include "collectives/types.h"
#include "measure/coll_records.h"
#include "util/topology.h"

namespace shardroof {

// The collectives --collective names: one, or with `tuning` (--tune-to) a
// comma-separated list or all of them.
std::vector<coll::CollectiveKind> coll_kinds(const std::string& text, bool tuning);

// "all", one name, or a comma-separated list of names (--impl).
std::vector<coll::Algorithm> parse_coll_impls(const std::string& text, coll::CollectiveKind kind);

// hier needs equal nodes and groups (and for reduce_scatter consecutive
// ranks); `all` (`impl_all`: --impl all) runs it where it differs from the
// ring: two levels or more that move data (several nodes of several ranks).
void add_or_check_hier(CollPlan& plan, const Topology& topology, bool impl_all);

// MPI counts are ints: the native collectives cannot move some sizes.
// `every_impl`: the plan measures every implementation (--tune-to), native
// among them.
void check_native_limits(const CollPlan& plan, int nranks, bool every_impl);

// The most bytes one rank allocates to measure `plan` at its largest size
// for any of `kinds` (coll_bytes_per_rank); `every_impl` as above.
std::uint64_t coll_bytes_needed(const CollPlan& plan, const std::vector<coll::CollectiveKind>& kinds, int nranks,
                                const Topology& topology, bool every_impl);

// What measure_collectives allocates per rank at `bytes` (send, recv, in
// place, its pristine copy, two host staging arrays), plus one more array
// for the MPI library's own temporaries, one for the receive slots of ring
// and pairwise, direct AllReduce's N receive
// slots when it runs, and hier ReduceScatter's scratch where its first
// level that moves data has `hier_k` units (0: it does not run, or
// regroups nothing): the regrouped input and that level's reduced piece
// (collectives/hierarchical.cpp). Rank 0 holds the
// largest blocks.
std::uint64_t coll_bytes_per_rank(coll::CollectiveKind kind, std::uint64_t bytes, std::size_t es, int nranks,
                                  bool direct, int hier_k);

}  // namespace shardroof
