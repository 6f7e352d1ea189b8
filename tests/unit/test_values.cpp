// cli/values.h: the value syntaxes every flag shares.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/values.h"
#include "util/units.h"
#include "util/error.h"

namespace shardroof {
namespace {

using List = std::vector<std::uint64_t>;

TEST(ParseBytes, PlainAndSuffixedSizes) {
  EXPECT_EQ(parse_bytes("0", "-b"), 0u);
  EXPECT_EQ(parse_bytes("8", "-b"), 8u);
  EXPECT_EQ(parse_bytes("32K", "-b"), 32u * 1024);
  EXPECT_EQ(parse_bytes("32k", "-b"), 32u * 1024);
  EXPECT_EQ(parse_bytes("1M", "-b"), 1u << 20);
  EXPECT_EQ(parse_bytes("4G", "-b"), std::uint64_t{4} << 30);
  EXPECT_EQ(parse_bytes("2T", "-b"), std::uint64_t{2} << 40);
  EXPECT_EQ(parse_bytes("1.5M", "-b"), 3u << 19);
  EXPECT_EQ(parse_bytes("32MB", "-b"), 32u << 20);
  EXPECT_EQ(parse_bytes("  64 ", "-b"), 64u);
  // Sizes past 2^32 stay exact (64-bit sizes end to end).
  EXPECT_EQ(parse_bytes("5G", "-e"), std::uint64_t{5} << 30);
  EXPECT_EQ(parse_bytes("4294967297", "-e"), 4294967297u);
}

TEST(ParseBytes, BadInputIsAUsageErrorNamingTheFlag) {
  for (const char* bad : {"", "  ", "-1", "+5", "abc", "1X", "M", "1.5", "0.3K", "1e400", "99999999T", "1,5"}) {
    try {
      parse_bytes(bad, "--maxbytes");
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--maxbytes"), std::string::npos) << e.what();
      EXPECT_EQ(e.code(), ExitCode::Usage);
    }
  }
}

TEST(ParseCount, PositiveOnly) {
  EXPECT_EQ(parse_count("1", "-n"), 1u);
  EXPECT_EQ(parse_count("4K", "-n"), 4096u);
  EXPECT_THROW(parse_count("0", "-n"), UsageError);
  EXPECT_THROW(parse_count("2.5", "-n"), UsageError);
  EXPECT_THROW(parse_count("-3", "-n"), UsageError);
}

TEST(ParseNumber, FiniteNumbers) {
  EXPECT_EQ(parse_number("2", "-f"), 2.0);
  EXPECT_EQ(parse_number("1e9", "-f"), 1e9);
  EXPECT_EQ(parse_number(" 4.5e10 ", "-f"), 4.5e10);
  EXPECT_EQ(parse_number("-0.25", "-f"), -0.25);
  for (const char* bad : {"", "abc", "2x", "inf", "nan", "1e999"}) EXPECT_THROW(parse_number(bad, "-f"), UsageError) << bad;
}

TEST(ParseIntList, CommaLists) {
  EXPECT_EQ(parse_int_list("64", "--D"), (List{64}));
  EXPECT_EQ(parse_int_list("64,128,1000", "--D"), (List{64, 128, 1000}));
  // Sorted and de-duplicated.
  EXPECT_EQ(parse_int_list("1000, 64,128,64", "--D"), (List{64, 128, 1000}));
  EXPECT_EQ(parse_int_list("1K,2K", "--D"), (List{1024, 2048}));
}

TEST(ParseIntList, GeometricRanges) {
  EXPECT_EQ(parse_int_list("1:16:x2", "--D"), (List{1, 2, 4, 8, 16}));
  EXPECT_EQ(parse_int_list("64:1000:x4", "--D"), (List{64, 256}));
  EXPECT_EQ(parse_int_list("64:4K:x2", "--D"), (List{64, 128, 256, 512, 1024, 2048, 4096}));
  EXPECT_EQ(parse_int_list("5:5:x2", "--D"), (List{5}));
  // Non-integer factors round and skip repeats.
  EXPECT_EQ(parse_int_list("1:4:x1.5", "--D"), (List{1, 2, 3}));
}

TEST(ParseIntList, ArithmeticRanges) {
  EXPECT_EQ(parse_int_list("1:10:+3", "--D"), (List{1, 4, 7, 10}));
  EXPECT_EQ(parse_int_list("100:120:+10", "--D"), (List{100, 110, 120}));
}

TEST(ParseIntList, BadInputIsAUsageError) {
  for (const char* bad : {"", "1,,2", "1,", "a,b", "0,4", "-4", "16:1:x2", "1:16", "1:16:2", "1:16:y2",
                          "1:16:x1", "1:16:x0.5", "1:16:+0", "1:16:+1.5", "1:2:3:4", "1:100000000:+1"}) {
    EXPECT_THROW(parse_int_list(bad, "--D"), UsageError) << "'" << bad << "'";
  }
}

TEST(FormatBytes, ShortBinaryUnits) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1000), "1000 B");
  EXPECT_EQ(format_bytes(1024), "1 KiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(1048576), "1 MiB");
  EXPECT_EQ(format_bytes(std::uint64_t{3} << 30), "3 GiB");
}

TEST(ParseRate, DecimalSuffixesAndUnits) {
  EXPECT_DOUBLE_EQ(parse_rate("1", "--expect-W"), 1.0);
  EXPECT_DOUBLE_EQ(parse_rate("40G", "--expect-busbw"), 40e9);
  EXPECT_DOUBLE_EQ(parse_rate("40g", "--expect-busbw"), 40e9);
  EXPECT_DOUBLE_EQ(parse_rate("40GB/s", "--expect-busbw"), 40e9);
  EXPECT_DOUBLE_EQ(parse_rate("1.5T/s", "--expect-busbw"), 1.5e12);
  EXPECT_DOUBLE_EQ(parse_rate("4.5e10", "--expect-busbw"), 4.5e10);
  EXPECT_DOUBLE_EQ(parse_rate("1P", "--expect-busbw"), 1e15);
  EXPECT_DOUBLE_EQ(parse_rate("1B/s", "--expect-W"), 1.0);
  for (const char* bad : {"", "G", "fast", "0", "-4G", "4Q", "inf", "1e999"})
    EXPECT_THROW(parse_rate(bad, "--expect-busbw"), UsageError) << bad;
}

TEST(ParseRate, GatesRefuseABareNumber) {
  EXPECT_DOUBLE_EQ(parse_rate_with_unit("40G", "--expect-busbw"), 40e9);
  EXPECT_DOUBLE_EQ(parse_rate_with_unit("40GB/s", "--expect-busbw"), 40e9);
  EXPECT_DOUBLE_EQ(parse_rate_with_unit("400m", "--expect-busbw"), 400e6);
  EXPECT_DOUBLE_EQ(parse_rate_with_unit("1B/s", "--expect-W"), 1.0);
  EXPECT_DOUBLE_EQ(parse_rate_with_unit("4.5e10/s", "--expect-W"), 4.5e10);
  for (const char* bad : {"100000", "4.5e10", "1", "", "fast", "G", "0G"})
    EXPECT_THROW(parse_rate_with_unit(bad, "--expect-busbw"), UsageError) << bad;
  try {
    parse_rate_with_unit("100000", "--expect-busbw");
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("has no unit"), std::string::npos) << m;
    EXPECT_NE(m.find("40GB/s"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace shardroof
