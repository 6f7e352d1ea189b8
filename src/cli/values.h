// Parsing of the value syntaxes the flags share: byte sizes with K/M/G
// suffixes (powers of 1024, as in nccl-tests), and lists of integers given
// either as `64,128,1000` or as a geometric range `lo:hi:xK` (lo, lo*K, ...
// up to hi) or an arithmetic one `lo:hi:+K`. Every parser throws UsageError
// with the offending text on bad input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shardroof {

// "8", "32K", "1M", "4G", "1.5M" -> bytes. Zero is allowed (nccl-tests allows -b 0).
std::uint64_t parse_bytes(std::string_view text, std::string_view what);
// A positive integer that may carry a K/M/G suffix.
std::uint64_t parse_count(std::string_view text, std::string_view what);
// "64,128,1000" or "lo:hi:xK" or "lo:hi:+K" -> sorted, de-duplicated values.
std::vector<std::uint64_t> parse_int_list(std::string_view text, std::string_view what);
// A segment size for the segmented collectives: "auto" -> 0 (chosen from
// the block size, collectives/segments.h), else a positive byte count.
std::uint64_t parse_segment_bytes(std::string_view text, std::string_view what);
// A positive rate in bytes per second: a number with an optional K/M/G/T/P
// suffix in powers of 1000 (the tables' GB/s are 1e9 bytes/s), and an
// optional trailing "B/s" or "/s": "40G", "40GB/s", "4.5e10", "1P".
double parse_rate(std::string_view text, std::string_view what);
// "a,b,c" -> {"a", "b", "c"}: the names of a comma-separated list as typed
// (an empty name stays, so that the caller's error names it).
std::vector<std::string_view> split_list(std::string_view text);

// parse_rate with the unit written out: a K/M/G/T/P suffix or a "B/s" or
// "/s" tail ("40G", "40GB/s", "1B/s"). A bare number is refused: a gate
// whose 100000 means 100 KB/s to the program and 100 TB/s to a reader used
// to GB/s passes for the wrong reason.
double parse_rate_with_unit(std::string_view text, std::string_view what);
// A finite number (for factors and model inputs), e.g. "2", "1e9", "4.5e10".
double parse_number(std::string_view text, std::string_view what);

}  // namespace shardroof
