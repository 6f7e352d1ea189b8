#include "parse_harness.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "cli/ceiling_flags.h"
#include "cli/config_file.h"
#include "cli/values.h"
#include "model/checked_prediction.h"
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

// `predict`'s numeric flags, ';'-separated in this order:
//   flops;bw;latency;memory-bw;reduce-rate;ranks;B;F;D;collective
// (empty fields are flags not given; missing trailing fields are empty).
// They go through the same parsing and checks as `predict`, and a
// prediction that comes back must be finite and of bounded size.
void model_flags(const std::string& text) {
  std::vector<std::string> f;
  std::size_t start = 0;
  for (;;) {
    const auto end = text.find(';', start);
    f.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  f.resize(10);
  model::Shape shape;
  shape.ranks = f[5].empty() ? 2 : static_cast<int>(std::min(parse_count(f[5], "--ranks"), std::uint64_t{1} << 30));
  shape.B = f[6].empty() ? 1024 : static_cast<double>(parse_count(f[6], "--B"));
  shape.F = f[7].empty() ? 1024 : static_cast<double>(parse_count(f[7], "--F"));
  shape.collective = f[9] == "rs" ? model::Collective::ReduceScatter : model::Collective::AllReduce;
  std::vector<double> D;
  if (!f[8].empty())
    for (const auto d : parse_int_list(f[8], "--D")) D.push_back(static_cast<double>(d));
  model::Ceilings c;
  (void)apply_ceiling_flags({f[0], f[1], f[2], f[3], f[4]}, c);
  const model::Prediction p = model::checked_predict(shape, c, D);
  check(std::isfinite(p.d_star) && p.d_star >= 0 && p.d_star <= model::kMaxD, "D* not finite or beyond 2^53", text);
  check(std::isfinite(p.d_star_memory) && p.d_star_memory >= 0, "memory-roof D* not finite", text);
  check(std::isfinite(p.t_comm) && p.t_comm >= 0, "T_comm not finite", text);
  check(!p.points.empty() && p.points.size() <= 100001, "prediction without points or with too many", text);
  for (const auto& pt : p.points)
    check(std::isfinite(pt.t_math) && pt.D <= model::kMaxD, "a point's T_math not finite or D beyond 2^53", text);
}

}  // namespace

void parse_one_input(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return;
  const int which = data[0] % 6;
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
      case 5: {
        model_flags(text);
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
