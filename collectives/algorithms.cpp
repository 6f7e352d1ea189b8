#include "collectives/algorithms.h"

#include <array>

#include "collectives/auto_collective.h"
#include "collectives/error.h"

namespace shardroof::coll {

namespace {
constexpr std::array kAlgorithms{Algorithm::Auto, Algorithm::Ring, Algorithm::Pairwise, Algorithm::Direct,
                                 Algorithm::Hier};
}  // namespace

std::string_view to_string(Algorithm a) {
  switch (a) {
    case Algorithm::Auto: return "auto";
    case Algorithm::Ring: return "ring";
    case Algorithm::Pairwise: return "pairwise";
    case Algorithm::Direct: return "direct";
    case Algorithm::Hier: return "hier";
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
  return own_algorithm_for(algorithm, kind) != nullptr;
}

std::unique_ptr<Collective> make_collective(Algorithm algorithm, CollectiveKind kind,
                                            Transport& transport, MemoryOps& memory,
                                            const RingOptions& options, const TuningTable& tuning) {
  if (!supports(algorithm, kind))
    throw InvalidArgument("the " + std::string(to_string(algorithm)) + " algorithm has no " +
                          std::string(to_string(kind)));
  if (algorithm == Algorithm::Auto)
    return make_auto_collective(kind, transport, memory, options, tuning,
                                {Algorithm::Ring, Algorithm::Pairwise, Algorithm::Direct});
  return own_algorithm_for(algorithm, kind)->make(transport, memory, options);
}

std::unique_ptr<Collective> make_auto_collective(CollectiveKind kind, Transport& transport, MemoryOps& memory,
                                                 const RingOptions& options, const TuningTable& tuning,
                                                 const std::vector<Algorithm>& algorithms, NativeFactory native) {
  std::vector<std::string> available;
  for (const Algorithm a : algorithms)
    if (a != Algorithm::Auto && supports(a, kind)) available.emplace_back(to_string(a));
  if (native) available.emplace_back(kNativeImpl);
  auto make = [kind, &transport, &memory, native](std::string_view impl,
                                                   const RingOptions& o) -> std::unique_ptr<Collective> {
    if (impl == kNativeImpl) return native ? native() : nullptr;
    const auto a = parse_algorithm(impl);
    if (!a || *a == Algorithm::Auto) return nullptr;
    return make_collective(*a, kind, transport, memory, o);
  };
  return std::make_unique<AutoCollective>(kind, transport.size(), tuning, std::move(available), std::move(make),
                                          options);
}

}  // namespace shardroof::coll
