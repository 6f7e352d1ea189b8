// One fuzz input through the parsers of user input: the first byte picks
// the parser (sizes, counts, integer lists and ranges, numbers, TOML config
// text, the model's numeric flags through `predict`'s checks), the rest is
// the text. Bad input must end in UsageError; anything
// else (another exception, a crash, a broken invariant) is a bug, and the
// harness aborts so the fuzzer keeps the input. Shared by the libFuzzer
// target and the unit test that replays fuzz/regressions/.
#pragma once

#include <cstddef>
#include <cstdint>

namespace shardroof::fuzz {

void parse_one_input(const std::uint8_t* data, std::size_t size);

}  // namespace shardroof::fuzz
