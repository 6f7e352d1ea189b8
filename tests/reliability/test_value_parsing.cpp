// Bad sizes, lists and ranges give UsageErrors with the offending text; and
// every input the fuzzer ever found a problem with (fuzz/regressions/) now
// goes through the parsers cleanly.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli/config_file.h"
#include "cli/values.h"
#include "parse_harness.h"
#include "util/error.h"

namespace shardroof {
namespace {

std::string usage_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no UsageError)";
}

TEST(ValueParsing, BadSizes) {
  EXPECT_NE(usage_message([] { parse_bytes("-8", "-b"); }).find("'-8' is not a non-negative size"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_bytes("12Q", "-b"); }).find("'12Q' is not a number"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_bytes("", "-b"); }).find("empty value"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_bytes("1.5", "-b"); }).find("not a whole number"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_bytes("99999999T", "-b"); }).find("too large"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_count("0", "-n"); }).find("must be positive"), std::string::npos);
  EXPECT_EQ(parse_bytes("0", "-b"), 0u);
  EXPECT_EQ(parse_bytes("32K", "-b"), 32768u);
}

TEST(ValueParsing, BadListsAndRanges) {
  EXPECT_NE(usage_message([] { parse_int_list("", "--D"); }).find("empty list"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_int_list("4096:64:x2", "--D"); }).find("inverted"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_int_list("64:4096:x1", "--D"); }).find("never grows"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_int_list("64:4096:x0.5", "--D"); }).find("never grows"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_int_list("64:4096:+0", "--D"); }).find("never grows"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_int_list("1:1T:+1", "--D"); }).find("more than"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_int_list("64:4096", "--D"); }).find("must be lo:hi:xK"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_int_list("64,,128", "--D"); }).find("empty value"), std::string::npos);
  EXPECT_NE(usage_message([] { parse_int_list("64,-1", "--D"); }).find("not a non-negative size"), std::string::npos);
  EXPECT_EQ(parse_int_list("64:512:x2", "--D"), (std::vector<std::uint64_t>{64, 128, 256, 512}));
  EXPECT_EQ(parse_int_list("1:10:+4", "--D"), (std::vector<std::uint64_t>{1, 5, 9}));
}

// Ranges whose numbers leave the integer types (found by fuzzing, see
// fuzz/regressions/README.md): they end, and with the right values.
TEST(ValueParsing, RangesAtTheEdgesOfTheIntegerTypes) {
  EXPECT_EQ(parse_int_list("4:1M:x1e45", "--D"), (std::vector<std::uint64_t>{4}));
  EXPECT_EQ(parse_int_list("1:10:+1e30", "--D"), (std::vector<std::uint64_t>{1}));
  const auto big = parse_int_list("1:16000000T:x16", "--D");
  ASSERT_FALSE(big.empty());
  EXPECT_EQ(big.front(), 1u);
  EXPECT_LE(big.back(), 16000000ull << 40);
  EXPECT_EQ(big.size(), 16u);  // 16^0 .. 16^15 = 2^60 <= 1.76e19 < 2^64
  EXPECT_NE(usage_message([] { parse_int_list("1:1000:x1.0000000000000002", "--D"); }).find("more than 100000 steps"),
            std::string::npos);
}

TEST(ValueParsing, ConfigTextErrorsNameTheLineAndTheClosestKey) {
  const std::vector<std::string> keys = {"minbytes", "maxbytes", "iters"};
  EXPECT_NE(usage_message([&] { config_text_to_args("minbytes = \"8\"\n\nmaxbytes = \"1M\n", "c.toml", "coll", keys); })
                .find("c.toml:3:"),
            std::string::npos);
  EXPECT_NE(usage_message([&] { config_text_to_args("itres = 5\n", "c.toml", "coll", keys); })
                .find("c.toml:1: unknown key 'itres' for 'coll' (did you mean 'iters'?)"),
            std::string::npos);
  EXPECT_EQ(config_text_to_args("iters = 5\n[coll]\nmaxbytes = \"1M\"\n", "c.toml", "coll", keys),
            (std::vector<std::string>{"--iters", "5", "--maxbytes", "1M"}));
}

// Every file in fuzz/regressions/ once crashed the harness or broke one of
// its invariants; the harness aborts the test if it does again.
TEST(FuzzRegressions, EveryKeptInputParsesCleanly) {
  namespace fs = std::filesystem;
  const fs::path dir(SHARDROOF_FUZZ_REGRESSIONS_DIR);
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  int replayed = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().extension() == ".md") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    SCOPED_TRACE(entry.path().string());
    fuzz::parse_one_input(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    ++replayed;
  }
  EXPECT_GT(replayed, 0);
}

}  // namespace
}  // namespace shardroof
