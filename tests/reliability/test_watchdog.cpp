// The watchdog without MPI: its action is replaced by one that records the
// message, so firing, not firing and the message text can be checked.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "util/watchdog.h"

namespace shardroof {
namespace {

using namespace std::chrono_literals;

struct Recorder {
  std::mutex mutex;
  std::vector<std::string> messages;
  Watchdog::TimeoutAction action() {
    return [this](const std::string& m) {
      std::lock_guard lock(mutex);
      messages.push_back(m);
    };
  }
  std::size_t count() {
    std::lock_guard lock(mutex);
    return messages.size();
  }
  std::string first() {
    std::lock_guard lock(mutex);
    return messages.empty() ? "" : messages.front();
  }
};

TEST(Watchdog, FiresWhenAnOpenScopeMakesNoProgress) {
  Recorder rec;
  Watchdog dog;
  dog.set_action(rec.action());
  dog.set_rank(3);
  dog.set_timeout(0.2);
  {
    WatchdogScope outer(dog, "all_reduce ring 32 MiB");
    WatchdogScope inner(dog, "timed iteration 7 of 20");
    std::this_thread::sleep_for(600ms);
  }
  ASSERT_EQ(rec.count(), 1u) << "fires once per stall, not once per check";
  const std::string m = rec.first();
  EXPECT_NE(m.find("error (rank 3): timeout: no progress for 0.2 s"), std::string::npos) << m;
  EXPECT_NE(m.find("all_reduce ring 32 MiB > timed iteration 7 of 20"), std::string::npos) << m;
  EXPECT_NE(m.find("rank 3 is still waiting"), std::string::npos) << m;
}

// The quiet tests run longer than the timeout in all (so a watchdog that
// ignored progress would fire) with gaps 20 times shorter than it (so a
// loaded machine that stretches a 50 ms sleep does not make them fail).
TEST(Watchdog, ProgressKeepsItQuiet) {
  Recorder rec;
  Watchdog dog;
  dog.set_action(rec.action());
  dog.set_timeout(1.0);
  WatchdogScope scope(dog, "sweep");
  for (int i = 0; i < 30; ++i) {
    WatchdogScope step(dog, "point " + std::to_string(i));  // entering and leaving is progress
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(rec.count(), 0u);
}

TEST(Watchdog, ExplicitProgressKeepsItQuiet) {
  Recorder rec;
  Watchdog dog;
  dog.set_action(rec.action());
  dog.set_timeout(1.0);
  WatchdogScope scope(dog, "long step");
  for (int i = 0; i < 30; ++i) {
    std::this_thread::sleep_for(50ms);
    dog.progress();
  }
  EXPECT_EQ(rec.count(), 0u);
}

TEST(Watchdog, QuietWithoutAnOpenScope) {
  Recorder rec;
  Watchdog dog;
  dog.set_action(rec.action());
  dog.set_timeout(0.1);
  { WatchdogScope scope(dog, "done quickly"); }
  std::this_thread::sleep_for(400ms);
  EXPECT_EQ(rec.count(), 0u);
}

TEST(Watchdog, ZeroTimeoutDisablesIt) {
  Recorder rec;
  Watchdog dog;
  dog.set_action(rec.action());
  dog.set_timeout(0);
  WatchdogScope scope(dog, "anything");
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(rec.count(), 0u);
  EXPECT_EQ(dog.timeout(), 0);
}

TEST(Watchdog, NamesNestedScopesOutermostFirst) {
  Watchdog dog;
  WatchdogScope a(dog, "shardroof coll");
  {
    WatchdogScope b(dog, "all_gather native 1 MiB");
    EXPECT_EQ(dog.current_operation(), "shardroof coll > all_gather native 1 MiB");
  }
  EXPECT_EQ(dog.current_operation(), "shardroof coll");
}

}  // namespace
}  // namespace shardroof
