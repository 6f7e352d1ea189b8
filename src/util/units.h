// How byte counts and times read in every table and message ("1 MiB", "4.98 ms"), shared by the
// reporters and the commands (no parsing here: cli/values.h parses).
#pragma once

#include <cstdint>
#include <string>

namespace shardroof {

// "1048576" -> "1 MiB"; powers of 1024, three significant digits.
std::string format_bytes(std::uint64_t bytes);

// Seconds in the unit that keeps them readable: "55.76 us", "4.98 ms",
// "1.2 s" (four significant digits).
std::string format_seconds(double seconds);

}  // namespace shardroof
