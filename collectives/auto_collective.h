// `auto`: per call, the implementation a tuning table names for the call's
// size and rank count (collectives/tuning.h).
//
// The candidates (our algorithms, and the library's own collective where
// the caller can build it) are made on first use by a factory and kept with
// their scratch, so after the warm-up call of a size a timed call never
// builds or allocates. A call of the same size as the previous one skips the
// lookup: the choice costs one comparison, which keeps `auto` as fast as
// its choice for the smallest messages.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/collective.h"
#include "collectives/collective_options.h"
#include "collectives/tuning.h"

namespace shardroof::coll {

class AutoCollective final : public Collective {
 public:
  // Builds the named implementation with these options.
  using Factory = std::function<std::unique_ptr<Collective>(std::string_view impl, const CollectiveOptions& options)>;

  // `available`: the names `make` can build, for `kind` on `nranks` ranks.
  // With options.segment_bytes > 0 the segment size is pinned; otherwise a
  // rule's segment_bytes applies. The table's rules are copied.
  AutoCollective(CollectiveKind kind, int nranks, const TuningTable& table, std::vector<std::string> available,
                 Factory make, CollectiveOptions options);
  ~AutoCollective() override;

  CollectiveKind kind() const override { return kind_; }
  // "auto:<what the last call ran>", e.g. "auto:native".
  std::string algorithm() const override;
  void run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override;

  // What a call of `bytes` bytes runs: an implementation name.
  std::string choice(std::uint64_t bytes) const;

 private:
  struct Choice {
    std::string impl;
    std::size_t segment_bytes = 0;
  };
  Choice choose(std::uint64_t bytes) const;
  Collective& candidate(const Choice& c);

  struct Built {
    Choice choice;
    std::unique_ptr<Collective> collective;
  };
  CollectiveKind kind_;
  std::vector<TuningRule> rules_;  // of this collective and rank count, by max_bytes
  std::vector<std::string> available_;
  Factory make_;
  CollectiveOptions options_;
  std::vector<Built> built_;
  std::uint64_t last_bytes_ = kNoUpperBound;
  Collective* current_ = nullptr;
  std::string current_name_ = "none";
};

}  // namespace shardroof::coll
