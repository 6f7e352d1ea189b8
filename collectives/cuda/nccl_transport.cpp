#include "collectives/cuda/nccl_transport.h"

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

RequestPtr NcclTransport::enqueue(bool send, void* buf, std::size_t bytes, int peer) {
  if (peer < 0 || peer >= size()) {
    throw InvalidArgument("nccl transport: peer " + std::to_string(peer) + " is not a rank of a group of " +
                          std::to_string(size()));
  }
  if (bytes == 0) return std::make_unique<DoneRequest>();
  return std::make_unique<NcclRequest>(this, queue_.post(send, buf, bytes, peer));
}

RequestPtr NcclTransport::isend(const void* buf, std::size_t bytes, int peer, int /*tag*/) {
  // NCCL's send takes a const pointer; P2pOp stores one pointer type for both.
  return enqueue(true, const_cast<void*>(buf), bytes, peer);
}

RequestPtr NcclTransport::irecv(void* buf, std::size_t bytes, int peer, int /*tag*/) {
  return enqueue(false, buf, bytes, peer);
}

void NcclTransport::issue_through(std::uint64_t id) {
  // Off the queue first: whatever happens below, nothing is issued twice.
  const std::vector<P2pOp> group = queue_.take_for(id);
  if (group.empty()) return;  // issued by an earlier group
  SHARDROOF_NCCL_COMM_CHECK(comm_, ncclGroupStart());
  for (const P2pOp& op : group) {
    if (op.send) {
      SHARDROOF_NCCL_COMM_CHECK(comm_, ncclSend(op.buf, op.bytes, ncclUint8, op.peer, comm_.get(), stream_));
    } else {
      SHARDROOF_NCCL_COMM_CHECK(comm_, ncclRecv(op.buf, op.bytes, ncclUint8, op.peer, comm_.get(), stream_));
    }
  }
  SHARDROOF_NCCL_COMM_CHECK(comm_, ncclGroupEnd());
}

}  // namespace shardroof::coll
