#include "collectives/algorithms.h"

#include <array>

#include "collectives/auto_collective.h"
#include "collectives/error.h"
#include "collectives/hierarchy_layout.h"

namespace shardroof::coll {

namespace {
constexpr std::array kAlgorithms{Algorithm::Auto, Algorithm::Ring, Algorithm::Pairwise, Algorithm::Direct,
                                 Algorithm::Hier, Algorithm::Native};
constexpr std::array kAutoCandidates{Algorithm::Ring, Algorithm::Pairwise, Algorithm::Direct};
}  // namespace

std::string_view to_string(Algorithm a) {
  switch (a) {
    case Algorithm::Auto: return "auto";
    case Algorithm::Ring: return "ring";
    case Algorithm::Pairwise: return "pairwise";
    case Algorithm::Direct: return "direct";
    case Algorithm::Hier: return "hier";
    case Algorithm::Native: return kNativeImpl;
  }
  return "?";
}

std::optional<Algorithm> parse_algorithm(std::string_view name) {
  for (auto a : kAlgorithms)
    if (name == to_string(a)) return a;
  return std::nullopt;
}

bool supports(Algorithm algorithm, CollectiveKind kind) {
  if (algorithm == Algorithm::Auto) return !traits(kind).algorithms.empty();
  if (algorithm == Algorithm::Native) return true;
  return own_algorithm_for(algorithm, kind) != nullptr;
}

std::vector<Algorithm> auto_candidates(CollectiveKind kind, bool tag_matching) {
  std::vector<Algorithm> out;
  for (const Algorithm a : kAutoCandidates) {
    const OwnAlgorithm* own = own_algorithm_for(a, kind);
    if (own && (tag_matching || !own->needs_tag_matching)) out.push_back(a);
  }
  return out;
}

bool hier_spans_levels(CollectiveKind kind, int nranks, const HierarchicalOptions& options) {
  if (!supports(Algorithm::Hier, kind) || options.node_of_rank.size() != static_cast<std::size_t>(nranks))
    return false;
  try {
    const HierarchyLayout layout(options.node_of_rank, options.group_of_rank);
    if (kind == CollectiveKind::ReduceScatter && !layout.consecutive_ranks()) return false;
    return layout.working_levels() > 1;
  } catch (const InvalidArgument&) {
    return false;  // not a layout hier runs on
  }
}

std::vector<Algorithm> auto_candidates(CollectiveKind kind, bool tag_matching, const CollectiveOptions& options,
                                       int nranks) {
  std::vector<Algorithm> out = auto_candidates(kind, tag_matching);
  if (hier_spans_levels(kind, nranks, options.hier)) out.push_back(Algorithm::Hier);
  return out;
}

std::unique_ptr<Collective> make_collective(Algorithm algorithm, CollectiveKind kind,
                                            Transport& transport, MemoryOps& memory,
                                            const CollectiveOptions& options, const TuningTable& tuning) {
  if (algorithm == Algorithm::Native)
    throw InvalidArgument("the library's own " + std::string(to_string(kind)) +
                          " is built by the owner of its communicator, not by make_collective");
  if (!supports(algorithm, kind))
    throw InvalidArgument("the " + std::string(to_string(algorithm)) + " algorithm has no " +
                          std::string(to_string(kind)));
  if (algorithm == Algorithm::Auto)
    return make_auto_collective(kind, transport, memory, options, tuning,
                                auto_candidates(kind, true, options, transport.size()));
  return own_algorithm_for(algorithm, kind)->make(transport, memory, options);
}

std::unique_ptr<Collective> make_auto_collective(CollectiveKind kind, Transport& transport, MemoryOps& memory,
                                                 const CollectiveOptions& options, const TuningTable& tuning,
                                                 const std::vector<Algorithm>& algorithms, NativeFactory native) {
  std::vector<std::string> available;
  for (const Algorithm a : algorithms)
    if (a != Algorithm::Auto && a != Algorithm::Native && supports(a, kind)) available.emplace_back(to_string(a));
  if (native) available.emplace_back(kNativeImpl);
  auto make = [kind, &transport, &memory, native](std::string_view impl,
                                                   const CollectiveOptions& o) -> std::unique_ptr<Collective> {
    if (impl == kNativeImpl) return native ? native() : nullptr;
    const auto a = parse_algorithm(impl);
    if (!a || *a == Algorithm::Auto || *a == Algorithm::Native) return nullptr;
    return make_collective(*a, kind, transport, memory, o);
  };
  return std::make_unique<AutoCollective>(kind, transport.size(), tuning, std::move(available), std::move(make),
                                          options);
}

}  // namespace shardroof::coll
