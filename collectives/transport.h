// Point-to-point transport under the hand-written collectives. A transport
// moves bytes between ranks of one group; it knows nothing of element types
// or reductions. MpiTransport (host buffers, or device buffers staged through
// host memory) and NcclTransport (device buffers) implement it.
//
// Ordering: messages between one (source, destination, tag) triple arrive in
// the order they were posted, as in MPI.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "collectives/memory.h"

namespace shardroof::coll {

// Completion handle of a non-blocking send or receive. wait() blocks until
// the buffer may be reused (send) or read (receive). Destroying a request
// that was not waited on waits for it.
class Request {
 public:
  virtual ~Request() = default;
  virtual void wait() = 0;
  // Whether the request has completed (wait() then returns at once), without
  // blocking; it may make progress. The default blocks until it has.
  virtual bool test() {
    wait();
    return true;
  }
};
using RequestPtr = std::unique_ptr<Request>;

// How a rank waits for its requests in the algorithms that poll them
// (pairwise, broadcast). Spin: poll without pause, the lowest latency when
// every rank has a core of its own. Yield: give the core away between polls
// (sched_yield), for nodes that run more ranks than they have cores, where a
// spinning rank takes time from the one it waits for. Sleep: every wait
// (a request's own wait() too) polls and sleeps between polls, for a thread
// that runs beside its own rank's compute (the overlapped step's
// communication thread, sweep/overlap.h): a spinning or yielding waiter
// stays runnable and takes turns on the core the GEMM needs, a sleeping one
// does not (collectives/wait.h says how long it sleeps).
enum class WaitPolicy { Spin, Yield, Sleep };

class Transport {
 public:
  virtual ~Transport() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string_view name() const = 0;
  // Which buffers isend/irecv accept.
  virtual MemorySpace memory_space() const = 0;
  // How the polling algorithms wait on this transport's requests.
  virtual WaitPolicy wait_policy() const { return WaitPolicy::Spin; }

  virtual RequestPtr isend(const void* buf, std::size_t bytes, int peer, int tag) = 0;
  virtual RequestPtr irecv(void* buf, std::size_t bytes, int peer, int tag) = 0;

  void send(const void* buf, std::size_t bytes, int peer, int tag) { isend(buf, bytes, peer, tag)->wait(); }
  void recv(void* buf, std::size_t bytes, int peer, int tag) { irecv(buf, bytes, peer, tag)->wait(); }
  // Send to one peer while receiving from another, without deadlock.
  void sendrecv(const void* sendbuf, std::size_t send_bytes, int dst, void* recvbuf,
                std::size_t recv_bytes, int src, int tag) {
    auto r = irecv(recvbuf, recv_bytes, src, tag);
    auto s = isend(sendbuf, send_bytes, dst, tag);
    r->wait();
    s->wait();
  }
};

inline void wait_all(std::vector<RequestPtr>& requests) {
  for (auto& r : requests) {
    if (r) r->wait();
  }
  requests.clear();
}

}  // namespace shardroof::coll
