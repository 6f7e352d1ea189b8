// libFuzzer entry point for the user-input parsers (see parse_harness.h).
#include <cstddef>
#include <cstdint>

#include "parse_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  shardroof::fuzz::parse_one_input(data, size);
  return 0;
}
