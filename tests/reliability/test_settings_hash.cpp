#include <gtest/gtest.h>

#include <csignal>
#include <string>
#include <vector>

#include "util/agreement.h"
#include "util/interrupt.h"

namespace shardroof {
namespace {

TEST(SettingsHash, SameSettingsSameHash) {
  const std::vector<std::string> a = {"coll", "-n", "5", "--maxbytes", "1M"};
  EXPECT_EQ(settings_hash(a), settings_hash(a));
  // FNV-1a of nothing is its offset basis: the same in every process and build.
  EXPECT_EQ(settings_hash({}), 1469598103934665603ULL);
}

TEST(SettingsHash, AnyDifferenceChangesIt) {
  EXPECT_NE(settings_hash({"coll", "-n", "5"}), settings_hash({"coll", "-n", "6"}));
  EXPECT_NE(settings_hash({"ab", "c"}), settings_hash({"a", "bc"})) << "strings are length-prefixed";
  EXPECT_NE(settings_hash({"coll"}), settings_hash({"coll", ""}));
}

TEST(Interrupt, FlagAndName) {
  simulate_interrupt_for_testing(0);
  EXPECT_FALSE(interrupt_requested());
  EXPECT_EQ(interrupt_signal_name(), "");
  simulate_interrupt_for_testing(SIGTERM);
  EXPECT_TRUE(interrupt_requested());
  EXPECT_EQ(interrupt_signal_name(), "SIGTERM");
  simulate_interrupt_for_testing(SIGINT);
  EXPECT_EQ(interrupt_signal_name(), "SIGINT");
  simulate_interrupt_for_testing(0);
  // Notes longer than the handler's buffer are cut, never overflow it.
  EXPECT_NO_THROW(set_interrupt_note(std::string(5000, 'x')));
  EXPECT_NO_THROW(set_interrupt_note("3 of 9 sizes are in r.json"));
}

}  // namespace
}  // namespace shardroof
