// Waiting for requests without taking the CPU from the ranks that share it.
//
// MPI's own wait spins (or spins and yields). When ranks outnumber cores,
// or share them with other work, a spinning rank takes time from the rank
// whose copy or reduction it is waiting for. wait_all_politely spins for a
// short while (a message that is nearly there costs no extra latency), then
// sleeps between polls with a growing pause, so the waiting rank gives its
// core away.
#pragma once

#include <sys/prctl.h>

#include <chrono>
#include <thread>
#include <vector>

#include "collectives/transport.h"

namespace shardroof::coll {

struct PoliteWait {
  std::chrono::microseconds spin{30};       // poll without sleeping this long
  std::chrono::microseconds first_sleep{5};  // then sleep this long, doubling
  std::chrono::microseconds max_sleep{100};  // up to this
};

inline void wait_all_politely(std::vector<RequestPtr>& requests, const PoliteWait& how = {}) {
  using clock = std::chrono::steady_clock;
  const auto spin_until = clock::now() + how.spin;
  auto pause = how.first_sleep;
  std::size_t done = 0;  // requests [0, done) have completed
  while (done < requests.size()) {
    if (!requests[done] || requests[done]->test()) {
      ++done;
      continue;
    }
    if (clock::now() >= spin_until) {
      // Linux lets a sleep overrun by the thread's timer slack (50 us by
      // default), ten times the first pause: narrow it while sleeping here.
      const int old_slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
      if (old_slack > 0) prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
      std::this_thread::sleep_for(pause);
      if (old_slack > 0) prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(old_slack), 0, 0, 0);
      pause = std::min(pause * 2, how.max_sleep);
    }
  }
  requests.clear();
}

}  // namespace shardroof::coll
