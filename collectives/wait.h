// Waiting for requests without taking the CPU from the ranks that share it.
//
// MPI's own wait spins (or spins and yields). When ranks outnumber cores,
// or share them with other work, a spinning rank takes time from the rank
// whose copy or reduction it is waiting for. wait_all_politely polls; with
// WaitPolicy::Yield it yields its core to any other runnable thread between
// polls (sched_yield): the waiting rank stays runnable, so it polls again as
// soon as the scheduler comes back to it. With WaitPolicy::Spin (every rank
// has a core of its own) it polls without pause: a yield there hands the
// core to whatever else runs on the machine and costs the waiting rank its
// latency (2-rank pairwise AllReduce at 2 KiB: 8.7 us yielding against 3.2
// us for direct, which waits in MPI).
//
// An earlier version spun for a fixed 30 us and then slept between polls
// (5 us, doubling to 100 us). With 4 ranks on 2 cores a sleeping rank
// waited for a timer and the scheduler's wake-up: pairwise ReduceScatter
// on 4 ranks took two modes from run to run (32 KiB: 28.7 or 83.8 us),
// and the spin length was a constant chosen on one machine. Neither policy
// needs a constant; the transport says which applies (wait_policy_for:
// whether a node runs more ranks than its ranks' CPUs).
#pragma once

#include <sched.h>

#include <chrono>
#include <thread>
#include <vector>

#include "collectives/transport.h"

namespace shardroof::coll {

// One pause between polls of a wait that began at `since`.
class WaitPause {
 public:
  explicit WaitPause(WaitPolicy policy) : policy_(policy), since_(std::chrono::steady_clock::now()) {}
  void operator()() const {
    if (policy_ == WaitPolicy::Spin) return;
    if (policy_ == WaitPolicy::Sleep) {
      // Never a yield: beside a thread that keeps the core busy (the rank's
      // GEMM) sched_yield returns only when that thread's scheduler slice
      // ends, milliseconds later (p90 2.9 ms on a 2-vCPU VM, Linux 6.18),
      // once per wait; a sleeper is woken within the timer's slack.
      const auto waited = std::chrono::steady_clock::now() - since_;
      if (waited >= std::chrono::microseconds(8)) std::this_thread::sleep_for(waited / 8);
      return;
    }
    sched_yield();
  }

 private:
  WaitPolicy policy_;
  std::chrono::steady_clock::time_point since_;
};

inline void wait_all_politely(std::vector<RequestPtr>& requests, WaitPolicy policy) {
  const WaitPause pause(policy);
  std::size_t done = 0;  // requests [0, done) have completed
  while (done < requests.size()) {
    if (!requests[done] || requests[done]->test()) {
      ++done;
      continue;
    }
    pause();
  }
  requests.clear();
}

}  // namespace shardroof::coll
