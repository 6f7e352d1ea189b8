#include "collectives/auto_collective.h"

#include <algorithm>

#include "collectives/error.h"

namespace shardroof::coll {

AutoCollective::AutoCollective(CollectiveKind kind, int nranks, const TuningTable& table,
                               std::vector<std::string> available, Factory make, CollectiveOptions options)
    : kind_(kind),
      rules_(table.rules_for(kind, nranks)),
      available_(std::move(available)),
      make_(std::move(make)),
      options_(options) {
  if (available_.empty()) throw InvalidArgument("auto: no implementation of " + std::string(to_string(kind)) + " to choose from");
}

AutoCollective::~AutoCollective() = default;

std::string AutoCollective::algorithm() const { return "auto:" + current_name_; }

AutoCollective::Choice AutoCollective::choose(std::uint64_t bytes) const {
  const auto rule = std::find_if(rules_.begin(), rules_.end(), [&](const TuningRule& r) { return bytes <= r.max_bytes; });
  const auto have = [&](std::string_view name) {
    return std::find(available_.begin(), available_.end(), name) != available_.end();
  };
  const std::size_t pinned = options_.segment_bytes;
  if (rule != rules_.end()) {
    for (const std::string& name : rule->order)
      if (have(name)) return {name, pinned > 0 ? pinned : rule->segment_bytes};
  }
  for (std::string_view name : kFallbackOrder)
    if (have(name)) return {std::string(name), pinned};
  return {available_.front(), pinned};
}

std::string AutoCollective::choice(std::uint64_t bytes) const { return choose(bytes).impl; }

Collective& AutoCollective::candidate(const Choice& c) {
  for (Built& b : built_)
    if (b.choice.impl == c.impl && b.choice.segment_bytes == c.segment_bytes) return *b.collective;
  CollectiveOptions o = options_;
  o.segment_bytes = c.segment_bytes;
  auto made = make_(c.impl, o);
  if (!made) throw InvalidArgument("auto: cannot build '" + c.impl + "' for " + std::string(to_string(kind_)));
  built_.push_back({c, std::move(made)});
  return *built_.back().collective;
}

void AutoCollective::run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(count) * size_of(type);
  if (!current_ || bytes != last_bytes_) {
    const Choice c = choose(bytes);
    current_ = &candidate(c);
    current_name_ = c.impl;
    last_bytes_ = bytes;
  }
  current_->run(send, recv, count, type, op);
}

}  // namespace shardroof::coll
