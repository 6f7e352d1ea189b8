#include "collectives/clock.h"

#include <chrono>

namespace shardroof::coll {

double monotonic_seconds() noexcept {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace shardroof::coll
