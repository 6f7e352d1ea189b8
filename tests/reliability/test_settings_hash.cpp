#include <gtest/gtest.h>

#include <csignal>
#include <string>
#include <vector>

#include "util/agreement.h"
#include "util/interrupt.h"

namespace shardroof {
namespace {

// Values of 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime
// 0x100000001b3) over each string's length as 8 little-endian bytes and then
// its characters, computed apart from this code: the hash is the same in
// every process and build, so ranks can compare it.
TEST(SettingsHash, IsFnv1aOverLengthPrefixedStrings) {
  // Nothing: the offset basis itself.
  EXPECT_EQ(settings_hash({}), 0xcbf29ce484222325ULL);
  // "a": the bytes 01 00 00 00 00 00 00 00 61.
  EXPECT_EQ(settings_hash({"a"}), 5952155467226901439ULL);
  EXPECT_EQ(settings_hash({"coll", "-n", "5"}), 0x1685cb0e9f099116ULL);
}

TEST(SettingsHash, EqualSettingsBuiltApartHashAlike) {
  const std::vector<std::string> a = {"coll", "-n", "5", "--maxbytes", "1M"};
  std::vector<std::string> b;
  for (const char* part : {"coll", "-n", "5", "--maxbytes", "1M"}) b.emplace_back(part);
  EXPECT_EQ(settings_hash(a), settings_hash(b));
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
  // Notes longer than the handler's buffer (1024 bytes with its end) are
  // cut, never overflow it; a short note is published whole, replacing it.
  set_interrupt_note(std::string(5000, 'x'));
  EXPECT_EQ(interrupt_note(), std::string(1023, 'x'));
  set_interrupt_note("3 of 9 sizes are in r.json");
  EXPECT_EQ(interrupt_note(), "3 of 9 sizes are in r.json");
  set_interrupt_note("");
  EXPECT_EQ(interrupt_note(), "");
}

}  // namespace
}  // namespace shardroof
