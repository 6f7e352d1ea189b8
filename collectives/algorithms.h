// Our collective algorithms by name, and the size-based choice among them.
//
//   ring      N-1 (ReduceScatter, AllGather) or 2(N-1) (AllReduce) dependent
//             steps around a ring; bandwidth-optimal on any topology, the
//             choice for many ranks (ring_*.h). Broadcast: a pipelined chain
//             along the ring from the root (broadcast.h).
//   pairwise  every rank exchanges with every other at once, segmented: the
//             same bytes as the ring in 1 (2 for AllReduce) dependent rounds;
//             the choice for few ranks on a full crossbar such as shared
//             memory (pairwise.h). AllToAll: the pairwise exchange, one peer
//             pair per step (all_to_all.h).
//   direct    one round in which every rank receives every contribution
//             whole: the lowest latency for tiny messages (direct.h;
//             AllReduce and ReduceScatter).
//   hier      L levels for ranks grouped into nodes (and the nodes into
//             groups, level above level): a ring inside each node, rings
//             across the nodes of a group on 1/K of the data each, and so
//             up, then back down (hierarchical.h; AllReduce and
//             ReduceScatter). Needs CollectiveOptions::hier.node_of_rank
//             (and .group_of_rank past two levels).
//   auto      picks per call by message size and rank count from a measured
//             tuning table (auto_collective.h, tuning.h) among auto_candidates
//             and native; algorithm() then names the last choice, e.g.
//             "auto:direct".
//   native    the library's own collective (MPI's or NCCL's): every
//             collective has one; built by whoever owns the library's
//             communicator (mpi_native.h), not by make_collective.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/collective.h"
#include "collectives/memory.h"
#include "collectives/collective_options.h"
#include "collectives/traits.h"
#include "collectives/transport.h"
#include "collectives/tuning.h"

namespace shardroof::coll {

// Whether `algorithm` implements `kind` (auto: whenever one of ours does;
// native: always); the table of collectives/traits.h says which of ours do.
bool supports(Algorithm algorithm, CollectiveKind kind);

// Ours that `auto` chooses among for `kind`: ring, pairwise and direct where
// they implement it, less those that keep messages of two tags in flight
// when the transport has no tag matching (NCCL).
std::vector<Algorithm> auto_candidates(CollectiveKind kind, bool tag_matching = true);

// The same, and hier where `options` lay out `nranks` ranks over more than
// one level that moves data (hierarchy_layout.h, working_levels; for
// ReduceScatter, every unit consecutive ranks, as it requires): a size
// rule cannot know the layout, so hier is offered only where the run has
// one, and a table names it only for the layouts it was tuned on. The one
// list every setup uses.
std::vector<Algorithm> auto_candidates(CollectiveKind kind, bool tag_matching, const CollectiveOptions& options,
                                       int nranks);

// Whether hier is worth offering on this layout (see auto_candidates):
// a valid layout of `nranks` ranks with at least two working levels.
bool hier_spans_levels(CollectiveKind kind, int nranks, const HierarchicalOptions& options);

// Builds our collective; throws InvalidArgument if the algorithm has no such
// collective (native included: see above). transport and memory are
// borrowed and must outlive it. `auto` chooses among auto_candidates(kind,
// true, options, transport.size()) by `tuning` (an empty table: the ring; see make_auto_collective for one
// that can also run the library's own collective).
std::unique_ptr<Collective> make_collective(Algorithm algorithm, CollectiveKind kind,
                                            Transport& transport, MemoryOps& memory,
                                            const CollectiveOptions& options = {},
                                            const TuningTable& tuning = {});

// The library's own collective of a kind, for `auto` to choose (may be empty).
using NativeFactory = std::function<std::unique_ptr<Collective>()>;

// `auto` over our `algorithms` (those of them that implement `kind`; Auto
// itself is ignored) and, when `native` is given, the library's own
// collective under the name "native", chosen among by `tuning`.
std::unique_ptr<Collective> make_auto_collective(CollectiveKind kind, Transport& transport, MemoryOps& memory,
                                                 const CollectiveOptions& options, const TuningTable& tuning,
                                                 const std::vector<Algorithm>& algorithms,
                                                 NativeFactory native = {});

}  // namespace shardroof::coll
