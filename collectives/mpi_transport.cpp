#include "collectives/mpi_transport.h"

#include <sched.h>

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "collectives/error.h"
#include "collectives/mpi_poll.h"
#include "collectives/wait.h"

namespace shardroof::coll {

void check_mpi(int rc, const char* what, const char* file, int line) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  throw TransportError(std::string(file) + ":" + std::to_string(line) + ": rank " +
                       std::to_string(rank) + ": " + what + " failed: " + std::string(msg, len));
}

namespace {

class MpiRequest final : public Request {
 public:
  explicit MpiRequest(WaitPolicy policy) : policy_(policy) {}
  MpiRequest(const MpiRequest&) = delete;
  MpiRequest& operator=(const MpiRequest&) = delete;
  ~MpiRequest() override {
    // A request must never outlive its buffer unfinished: complete it, and
    // swallow errors here (a destructor must not throw).
    if (!pending_.empty()) {
      MPI_Waitall(static_cast<int>(pending_.size()), pending_.data(), MPI_STATUSES_IGNORE);
    }
  }
  void wait() override {
    if (pending_.empty()) return;
    if (policy_ == WaitPolicy::Sleep) {
      // MPI's own wait spins: poll, and sleep between polls (collectives/wait.h).
      const WaitPause pause(policy_);
      while (!test()) pause();
      return;
    }
    SHARDROOF_MPI_CHECK(MPI_Waitall(static_cast<int>(pending_.size()), pending_.data(),
                                    MPI_STATUSES_IGNORE));
    pending_.clear();
  }
  bool test() override {
    if (pending_.empty()) return true;
    const bool done = poll_requests(pending_);
    if (done) pending_.clear();
    return done;
  }
  std::vector<MPI_Request> pending_;

 private:
  WaitPolicy policy_;
};

template <class Post>
RequestPtr post_pieces(std::size_t bytes, std::size_t max_piece, WaitPolicy policy, Post post) {
  auto req = std::make_unique<MpiRequest>(policy);
  // A zero-byte message is still a message: the peer posted one too.
  std::size_t offset = 0;
  do {
    const std::size_t piece = std::min(bytes - offset, max_piece);
    MPI_Request r = MPI_REQUEST_NULL;
    post(offset, static_cast<int>(piece), &r);
    req->pending_.push_back(r);
    offset += piece;
  } while (offset < bytes);
  return req;
}

}  // namespace

MpiTransport::MpiTransport(MPI_Comm comm, std::size_t max_piece_bytes, WaitPolicy wait_policy)
    : comm_(comm), max_piece_bytes_(max_piece_bytes), wait_policy_(wait_policy) {
  if (max_piece_bytes_ == 0 || max_piece_bytes_ > static_cast<std::size_t>(INT_MAX))
    throw InvalidArgument("MpiTransport: piece size " + std::to_string(max_piece_bytes_) +
                          " bytes is outside 1..INT_MAX");
  SHARDROOF_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  SHARDROOF_MPI_CHECK(MPI_Comm_size(comm_, &size_));
}

RequestPtr MpiTransport::isend(const void* buf, std::size_t bytes, int peer, int tag) {
  const auto* p = static_cast<const char*>(buf);
  return post_pieces(bytes, max_piece_bytes_, wait_policy_, [&](std::size_t off, int n, MPI_Request* r) {
    SHARDROOF_MPI_CHECK(MPI_Isend(p + off, n, MPI_BYTE, peer, tag, comm_, r));
  });
}

RequestPtr MpiTransport::irecv(void* buf, std::size_t bytes, int peer, int tag) {
  auto* p = static_cast<char*>(buf);
  return post_pieces(bytes, max_piece_bytes_, wait_policy_, [&](std::size_t off, int n, MPI_Request* r) {
    SHARDROOF_MPI_CHECK(MPI_Irecv(p + off, n, MPI_BYTE, peer, tag, comm_, r));
  });
}

NodeCpus node_cpus(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  SHARDROOF_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int node_ranks = 1;
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_SET(0, &mine);  // unknown: count one CPU
  cpu_set_t all;
  CPU_ZERO(&all);
  const int rc_size = MPI_Comm_size(node, &node_ranks);
  const int rc_or = MPI_Allreduce(&mine, &all, static_cast<int>(sizeof mine), MPI_BYTE, MPI_BOR, node);
  MPI_Comm_free(&node);
  SHARDROOF_MPI_CHECK(rc_size);
  SHARDROOF_MPI_CHECK(rc_or);
  return {CPU_COUNT(&all), node_ranks};
}

WaitPolicy wait_policy_for(MPI_Comm comm) {
  const NodeCpus node = node_cpus(comm);
  const int outnumbered = node.ranks > node.cpus ? 1 : 0;
  int any = 0;  // one answer for every rank: the algorithms' peers wait alike
  SHARDROOF_MPI_CHECK(MPI_Allreduce(&outnumbered, &any, 1, MPI_INT, MPI_MAX, comm));
  return any ? WaitPolicy::Yield : WaitPolicy::Spin;
}

}  // namespace shardroof::coll
