// A tuning table: which implementation `auto` runs, by collective, rank
// count and message size. It is measured, not guessed: `shardroof coll
// --tune-to FILE` times every implementation (ours and the library's native
// one) at every size on the ranks and transport at hand and writes the
// table; `measured` says where and when. A built-in table measured on one
// machine is the default (src/tuning/tuning_file.h).
//
// Lookup: the rules of a collective and rank count, in increasing max_bytes,
// cut the sizes into ranges; a call of S bytes takes the first rule with
// S <= max_bytes. Each rule lists implementations fastest first, and `auto`
// runs the first one it can build (the library's native collective is not
// available everywhere, pairwise not over NCCL). Where the table has no rule
// for the collective and rank count, kFallbackOrder applies: the library's
// own collective, which carries the library's tuning for networks and rank
// counts this table never saw, and else the ring.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "collectives/collective.h"

namespace shardroof::coll {

// Implementation names in tuning tables (and `coll --impl`).
inline constexpr std::string_view kNativeImpl = "native";
inline constexpr std::string_view kFallbackOrder[] = {"native", "ring"};

inline constexpr std::uint64_t kNoUpperBound = std::numeric_limits<std::uint64_t>::max();

struct TuningRule {
  CollectiveKind kind = CollectiveKind::AllReduce;
  int ranks = 0;
  // This rule covers sizes above the previous rule's max_bytes (of the same
  // collective and rank count) up to and including this.
  std::uint64_t max_bytes = kNoUpperBound;
  // Implementation names, fastest first.
  std::vector<std::string> order;
  // CollectiveOptions::segment_bytes for a segmented implementation (0: automatic).
  std::size_t segment_bytes = 0;
};

// Where the rules of some collectives on one rank count were measured:
// ordered key/value pairs (host, cpu, MPI library, transport, date, load,
// command, ...).
struct TuningOrigin {
  int ranks = 0;
  std::vector<CollectiveKind> kinds;
  // The sizes measured, smallest and largest (bytes).
  std::uint64_t min_bytes = 0;
  std::uint64_t max_bytes = kNoUpperBound;
  std::vector<std::pair<std::string, std::string>> fields;
  // The value of `key`, or "" when absent.
  std::string get(const std::string& key) const;
};

struct TuningTable {
  std::vector<TuningOrigin> measured;
  std::vector<TuningRule> rules;

  // The rule covering a call of `bytes` bytes, or nullptr when the table has
  // none for this collective and rank count.
  const TuningRule* rule_for(CollectiveKind kind, int ranks, std::uint64_t bytes) const;
  // The rules of one collective and rank count, in increasing max_bytes.
  std::vector<TuningRule> rules_for(CollectiveKind kind, int ranks) const;
  // Where the rules of `kind` on `ranks` ranks were measured, or nullptr.
  const TuningOrigin* origin_for(CollectiveKind kind, int ranks) const;
  // Merges a new measurement `other` of `kinds` on `ranks` ranks over the
  // sizes [lo, hi]: its rules replace this table's inside that range; rules
  // for other collectives and rank counts stay, and so do this table's
  // rules for smaller and larger sizes where its own measurements reached
  // them (per [[measured]] ranges; a table without origins counts as
  // measured everywhere). Elsewhere the new choices at lo and hi extend
  // outwards, as in a fresh table. Origins whose whole range was measured
  // anew are replaced by other's.
  void merge(int ranks, const std::vector<CollectiveKind>& kinds, std::uint64_t lo, std::uint64_t hi,
             const TuningTable& other);
  // Rules sorted by collective, ranks and max_bytes (the order lookups and
  // files use).
  void sort();
};

}  // namespace shardroof::coll
