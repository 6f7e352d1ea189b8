// The issuing rule of NcclTransport (see nccl_transport.h), kept free of
// CUDA and NCCL so that it can be tested on any machine: operations are
// queued when posted and taken off the queue, as one group, when someone
// waits for one of them.
//
// Paired (the rule NcclTransport uses): a wait on a receive takes every
// queued receive plus as many queued sends, oldest first; a wait on a send
// takes the queued sends up to it plus every queued receive.
// All (for comparison in tests): a wait takes everything queued.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace shardroof::coll {

struct P2pOp {
  std::uint64_t id = 0;
  bool send = false;
  void* buf = nullptr;
  std::size_t bytes = 0;
  int peer = 0;
};

enum class P2pFlushPolicy { Paired, All };

class P2pQueue {
 public:
  explicit P2pQueue(P2pFlushPolicy policy = P2pFlushPolicy::Paired) : policy_(policy) {}

  std::uint64_t post(bool send, void* buf, std::size_t bytes, int peer) {
    const std::uint64_t id = next_id_++;
    (send ? sends_ : recvs_).push_back(P2pOp{id, send, buf, bytes, peer});
    return id;
  }

  // The group to issue for a wait on `id`: sends first, then receives, each
  // in posting order. Empty when `id` was issued by an earlier group.
  std::vector<P2pOp> take_for(std::uint64_t id) {
    const auto is = [id](const P2pOp& op) { return op.id == id; };
    std::size_t n_sends = 0;
    if (std::any_of(recvs_.begin(), recvs_.end(), is)) {
      n_sends = policy_ == P2pFlushPolicy::All ? sends_.size() : std::min(sends_.size(), recvs_.size());
    } else if (const auto it = std::find_if(sends_.begin(), sends_.end(), is); it != sends_.end()) {
      n_sends = policy_ == P2pFlushPolicy::All ? sends_.size() : static_cast<std::size_t>(it - sends_.begin()) + 1;
    } else {
      return {};
    }
    std::vector<P2pOp> group(sends_.begin(), sends_.begin() + static_cast<std::ptrdiff_t>(n_sends));
    sends_.erase(sends_.begin(), sends_.begin() + static_cast<std::ptrdiff_t>(n_sends));
    group.insert(group.end(), recvs_.begin(), recvs_.end());
    recvs_.clear();
    return group;
  }

  std::size_t queued() const { return sends_.size() + recvs_.size(); }

 private:
  P2pFlushPolicy policy_;
  std::deque<P2pOp> sends_;
  std::deque<P2pOp> recvs_;
  std::uint64_t next_id_ = 1;
};

}  // namespace shardroof::coll
