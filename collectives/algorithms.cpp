#include "collectives/algorithms.h"

#include <array>

#include "collectives/direct.h"
#include "collectives/error.h"
#include "collectives/pairwise.h"
#include "collectives/ring_all_gather.h"
#include "collectives/ring_all_reduce.h"
#include "collectives/ring_reduce_scatter.h"

namespace shardroof::coll {

namespace {
constexpr std::array kAlgorithms{Algorithm::Auto, Algorithm::Ring, Algorithm::Pairwise, Algorithm::Direct};
}  // namespace

std::string_view to_string(Algorithm a) {
  switch (a) {
    case Algorithm::Auto: return "auto";
    case Algorithm::Ring: return "ring";
    case Algorithm::Pairwise: return "pairwise";
    case Algorithm::Direct: return "direct";
  }
  return "?";
}

std::optional<Algorithm> parse_algorithm(std::string_view name) {
  for (auto a : kAlgorithms)
    if (name == to_string(a)) return a;
  return std::nullopt;
}

Algorithm AutoChoice::choose(CollectiveKind kind, std::size_t bytes, int nranks) const {
  if (kind == CollectiveKind::AllReduce && bytes <= direct_max_bytes_all_reduce) return Algorithm::Direct;
  return nranks <= pairwise_max_ranks ? Algorithm::Pairwise : Algorithm::Ring;
}

bool supports(Algorithm algorithm, CollectiveKind kind) {
  return algorithm != Algorithm::Direct || kind != CollectiveKind::AllGather;
}

namespace {

std::unique_ptr<Collective> make_ring(CollectiveKind kind, Transport& t, MemoryOps& m,
                                      const RingOptions& o) {
  switch (kind) {
    case CollectiveKind::AllReduce: return std::make_unique<RingAllReduce>(t, m, o);
    case CollectiveKind::ReduceScatter: return std::make_unique<RingReduceScatter>(t, m, o);
    case CollectiveKind::AllGather: return std::make_unique<RingAllGather>(t, m, o);
  }
  return nullptr;
}

// Runs the algorithm AutoChoice picks for each call's size. Every candidate
// is built up front and keeps its own scratch, so a timed call never
// allocates after the first call of its size.
class AutoCollective final : public Collective {
 public:
  AutoCollective(CollectiveKind kind, Transport& t, MemoryOps& m, const RingOptions& o,
                 const AutoChoice& choice)
      : kind_(kind), nranks_(t.size()), choice_(choice) {
    for (auto a : {Algorithm::Ring, Algorithm::Pairwise, Algorithm::Direct})
      if (supports(a, kind)) candidates_[static_cast<std::size_t>(a)] = make_collective(a, kind, t, m, o);
  }
  CollectiveKind kind() const override { return kind_; }
  std::string algorithm() const override { return "auto:" + std::string(to_string(last_)); }
  void run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override {
    last_ = choice_.choose(kind_, count * size_of(type), nranks_);
    if (!candidates_[static_cast<std::size_t>(last_)]) last_ = Algorithm::Ring;
    candidates_[static_cast<std::size_t>(last_)]->run(send, recv, count, type, op);
  }

 private:
  CollectiveKind kind_;
  int nranks_;
  AutoChoice choice_;
  std::array<std::unique_ptr<Collective>, kAlgorithms.size()> candidates_;
  Algorithm last_ = Algorithm::Ring;
};

}  // namespace

std::unique_ptr<Collective> make_collective(Algorithm algorithm, CollectiveKind kind,
                                            Transport& transport, MemoryOps& memory,
                                            const RingOptions& options, const AutoChoice& choice) {
  if (!supports(algorithm, kind))
    throw InvalidArgument("the " + std::string(to_string(algorithm)) + " algorithm has no " +
                          std::string(to_string(kind)));
  switch (algorithm) {
    case Algorithm::Auto:
      return std::make_unique<AutoCollective>(kind, transport, memory, options, choice);
    case Algorithm::Ring: return make_ring(kind, transport, memory, options);
    case Algorithm::Pairwise: return std::make_unique<PairwiseCollective>(kind, transport, memory, options);
    case Algorithm::Direct: return std::make_unique<DirectCollective>(kind, transport, memory, options);
  }
  return nullptr;
}

}  // namespace shardroof::coll
