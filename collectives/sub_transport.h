// A transport over a subset of another transport's ranks: rank i of the
// subgroup is rank members[i] of the parent. The hierarchical collectives
// run their rings inside a node and across nodes over such views of one
// transport, so MPI and NCCL serve both levels without new communicators.
// Messages keep the parent's ordering per (source, destination, tag).
#pragma once

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "collectives/error.h"
#include "collectives/transport.h"

namespace shardroof::coll {

class SubTransport final : public Transport {
 public:
  // `parent` is borrowed and must outlive the view; `members` (parent ranks,
  // distinct) must include the parent's own rank.
  SubTransport(Transport& parent, std::vector<int> members) : parent_(parent), members_(std::move(members)) {
    const auto it = std::find(members_.begin(), members_.end(), parent_.rank());
    if (it == members_.end()) throw InvalidArgument("a subgroup must include the calling rank");
    rank_ = static_cast<int>(it - members_.begin());
  }

  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(members_.size()); }
  std::string_view name() const override { return parent_.name(); }
  MemorySpace memory_space() const override { return parent_.memory_space(); }
  WaitPolicy wait_policy() const override { return parent_.wait_policy(); }

  RequestPtr isend(const void* buf, std::size_t bytes, int peer, int tag) override {
    return parent_.isend(buf, bytes, members_[static_cast<std::size_t>(peer)], tag);
  }
  RequestPtr irecv(void* buf, std::size_t bytes, int peer, int tag) override {
    return parent_.irecv(buf, bytes, members_[static_cast<std::size_t>(peer)], tag);
  }

 private:
  Transport& parent_;
  std::vector<int> members_;
  int rank_ = 0;
};

}  // namespace shardroof::coll
