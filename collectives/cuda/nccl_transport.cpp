#include "collectives/cuda/nccl_transport.h"

#include <algorithm>

#include "collectives/error.h"

namespace shardroof::coll {
namespace {

class NcclRequest final : public Request {
 public:
  NcclRequest(NcclTransport* transport, std::uint64_t id) : transport_(transport), id_(id) {}
  NcclRequest(const NcclRequest&) = delete;
  NcclRequest& operator=(const NcclRequest&) = delete;
  ~NcclRequest() override {
    // An abandoned request is still issued, so the peer's matching call is
    // not left waiting; errors cannot leave a destructor.
    try {
      wait();
    } catch (...) {
    }
  }
  void wait() override {
    if (transport_) transport_->issue_through(id_);
    transport_ = nullptr;
  }

 private:
  NcclTransport* transport_;
  std::uint64_t id_;
};

// A zero-byte message: nothing to issue, nothing to wait for.
class DoneRequest final : public Request {
 public:
  void wait() override {}
};

}  // namespace

NcclTransport::NcclTransport(NcclComm& comm, cudaStream_t stream) : comm_(comm), stream_(stream) {}

RequestPtr NcclTransport::enqueue(std::deque<Op>& queue, void* buf, std::size_t bytes, int peer) {
  if (peer < 0 || peer >= size()) {
    throw InvalidArgument("nccl transport: peer " + std::to_string(peer) + " is not a rank of a group of " +
                          std::to_string(size()));
  }
  if (bytes == 0) return std::make_unique<DoneRequest>();
  const std::uint64_t id = next_id_++;
  queue.push_back(Op{id, buf, bytes, peer});
  return std::make_unique<NcclRequest>(this, id);
}

RequestPtr NcclTransport::isend(const void* buf, std::size_t bytes, int peer, int /*tag*/) {
  // NCCL's send takes a const pointer; Op stores one pointer type for both.
  return enqueue(sends_, const_cast<void*>(buf), bytes, peer);
}

RequestPtr NcclTransport::irecv(void* buf, std::size_t bytes, int peer, int /*tag*/) {
  return enqueue(recvs_, buf, bytes, peer);
}

void NcclTransport::issue_through(std::uint64_t id) {
  const auto has = [id](const std::deque<Op>& q) {
    return std::any_of(q.begin(), q.end(), [id](const Op& op) { return op.id == id; });
  };
  if (has(recvs_)) {
    issue(sends_, std::min(sends_.size(), recvs_.size()), recvs_);
  } else if (has(sends_)) {
    const auto it = std::find_if(sends_.begin(), sends_.end(), [id](const Op& op) { return op.id == id; });
    issue(sends_, static_cast<std::size_t>(it - sends_.begin()) + 1, recvs_);
  }
  // Otherwise it was issued by an earlier flush.
}

void NcclTransport::issue(std::deque<Op>& sends, std::size_t n_sends, std::deque<Op>& recvs) {
  // Take the operations off the queues first: whatever happens below, they
  // are never issued twice.
  std::deque<Op> s(sends.begin(), sends.begin() + static_cast<std::ptrdiff_t>(n_sends));
  sends.erase(sends.begin(), sends.begin() + static_cast<std::ptrdiff_t>(n_sends));
  std::deque<Op> r;
  r.swap(recvs);

  SHARDROOF_NCCL_COMM_CHECK(comm_, ncclGroupStart());
  for (const Op& op : s)
    SHARDROOF_NCCL_COMM_CHECK(comm_, ncclSend(op.buf, op.bytes, ncclUint8, op.peer, comm_.get(), stream_));
  for (const Op& op : r)
    SHARDROOF_NCCL_COMM_CHECK(comm_, ncclRecv(op.buf, op.bytes, ncclUint8, op.peer, comm_.get(), stream_));
  SHARDROOF_NCCL_COMM_CHECK(comm_, ncclGroupEnd());
}

}  // namespace shardroof::coll
