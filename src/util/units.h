// How byte counts read in every table and message ("1 MiB"), shared by the
// reporters and the commands (no parsing here: cli/values.h parses).
#pragma once

#include <cstdint>
#include <string>

namespace shardroof {

// "1048576" -> "1 MiB"; powers of 1024, three significant digits.
std::string format_bytes(std::uint64_t bytes);

}  // namespace shardroof
