#include "parse_harness.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "cli/config_file.h"
#include "cli/values.h"
#include "util/error.h"

namespace shardroof::fuzz {
namespace {

[[noreturn]] void bug(const char* what, const std::string& detail) {
  std::fprintf(stderr, "parse harness: %s: %s\n", what, detail.c_str());
  std::abort();
}

void check(bool ok, const char* what, const std::string& input) {
  if (!ok) bug(what, input);
}

}  // namespace

void parse_one_input(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return;
  const int which = data[0] % 5;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (which) {
      case 0: {
        (void)parse_bytes(text, "--bytes");
        break;
      }
      case 1: {
        check(parse_count(text, "--count") > 0, "parse_count returned 0", text);
        break;
      }
      case 2: {
        const auto values = parse_int_list(text, "--list");
        check(!values.empty(), "parse_int_list returned no values", text);
        for (std::size_t i = 0; i < values.size(); ++i) {
          check(values[i] > 0, "parse_int_list returned 0", text);
          if (i > 0) check(values[i - 1] < values[i], "parse_int_list not sorted and unique", text);
        }
        check(values.size() <= 100001, "parse_int_list returned too many values", text);
        break;
      }
      case 3: {
        (void)parse_number(text, "--number");
        break;
      }
      case 4: {
        const std::vector<std::string> keys = {"minbytes", "maxbytes", "iters", "datatype", "D"};
        const auto args = config_text_to_args(text, "fuzz.toml", "coll", keys);
        check(args.size() % 2 == 0, "config args are not flag/value pairs", text);
        for (std::size_t i = 0; i < args.size(); i += 2) check(args[i].rfind("--", 0) == 0, "config arg is not a flag", text);
        break;
      }
    }
  } catch (const UsageError&) {
    // The expected answer to bad input.
  } catch (const std::exception& e) {
    bug("unexpected exception instead of a UsageError", e.what());
  }
}

}  // namespace shardroof::fuzz
