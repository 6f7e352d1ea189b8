#include "cli/values.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "util/error.h"

namespace shardroof {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Parses a non-negative number with an optional K/M/G/T suffix (x1024^k).
std::uint64_t parse_scaled(std::string_view raw, std::string_view what, bool allow_fraction) {
  const std::string_view text = trim(raw);
  if (text.empty()) throw_usage("{}: empty value", what);
  std::string digits(text);
  double scale = 1;
  const char last = static_cast<char>(std::toupper(static_cast<unsigned char>(digits.back())));
  if (last == 'B' && digits.size() > 1 && !std::isdigit(static_cast<unsigned char>(digits[digits.size() - 2]))) {
    digits.pop_back();  // "32MB" reads as "32M"
  }
  const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(digits.back())));
  if (unit == 'K' || unit == 'M' || unit == 'G' || unit == 'T') {
    scale = unit == 'K' ? 1024.0 : unit == 'M' ? 1048576.0 : unit == 'G' ? 1073741824.0 : 1099511627776.0;
    digits.pop_back();
  }
  if (digits.empty() || digits[0] == '-' || digits[0] == '+')
    throw_usage("{}: '{}' is not a non-negative size", what, text);
  for (char c : digits) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || (allow_fraction && (c == '.' || c == 'e' || c == 'E'))))
      throw_usage("{}: '{}' is not a number (expected e.g. 64, 32K, 1M, 4G)", what, text);
  }
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(digits.c_str(), &end);
  if (errno != 0 || end != digits.c_str() + digits.size() || !std::isfinite(v))
    throw_usage("{}: '{}' is not a number", what, text);
  const double bytes = v * scale;
  if (bytes >= 1.8e19) throw_usage("{}: '{}' is too large", what, text);
  if (bytes != std::floor(bytes)) throw_usage("{}: '{}' is not a whole number", what, text);
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace

std::uint64_t parse_bytes(std::string_view text, std::string_view what) {
  return parse_scaled(text, what, true);
}

std::uint64_t parse_segment_bytes(std::string_view text, std::string_view what) {
  if (trim(text) == "auto") return 0;
  return parse_count(text, what);
}

std::uint64_t parse_count(std::string_view text, std::string_view what) {
  const auto v = parse_scaled(text, what, false);
  if (v == 0) throw_usage("{}: must be positive, got '{}'", what, trim(text));
  return v;
}

double parse_number(std::string_view raw, std::string_view what) {
  const std::string text(trim(raw));
  if (text.empty()) throw_usage("{}: empty value", what);
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v))
    throw_usage("{}: '{}' is not a number", what, text);
  return v;
}

std::vector<std::uint64_t> parse_int_list(std::string_view raw, std::string_view what) {
  const std::string_view text = trim(raw);
  if (text.empty()) throw_usage("{}: empty list", what);
  std::vector<std::uint64_t> out;
  if (text.find(':') != std::string_view::npos) {
    const auto c1 = text.find(':');
    const auto c2 = text.find(':', c1 + 1);
    if (c2 == std::string_view::npos || text.find(':', c2 + 1) != std::string_view::npos)
      throw_usage("{}: range '{}' must be lo:hi:xK (geometric) or lo:hi:+K (arithmetic)", what, text);
    const auto lo = parse_count(text.substr(0, c1), what);
    const auto hi = parse_count(text.substr(c1 + 1, c2 - c1 - 1), what);
    const std::string_view step = trim(text.substr(c2 + 1));
    if (lo > hi) throw_usage("{}: range '{}' is inverted (lo {} > hi {})", what, text, lo, hi);
    if (step.size() < 2 || (step[0] != 'x' && step[0] != '*' && step[0] != '+'))
      throw_usage("{}: step '{}' must be xK (multiply) or +K (add)", what, step);
    const double k = parse_number(step.substr(1), what);
    constexpr std::size_t kMaxPoints = 100000;
    if (step[0] == '+') {
      if (k < 1 || k != std::floor(k)) throw_usage("{}: step '{}' never grows the range", what, step);
      // A step beyond the range leaves just lo (and never overflows).
      const std::uint64_t inc = k > static_cast<double>(hi - lo) ? hi - lo + 1 : static_cast<std::uint64_t>(k);
      for (std::uint64_t v = lo;; v += inc) {
        out.push_back(v);
        if (out.size() > kMaxPoints) throw_usage("{}: range '{}' has more than {} points", what, text, kMaxPoints);
        if (hi - v < inc) break;
      }
    } else {
      if (!(k > 1)) throw_usage("{}: factor '{}' never grows the range (needs > 1)", what, step);
      // In doubles, compared before converting: a huge factor or hi must not
      // overflow an integer conversion, and a factor barely above 1 must not
      // spin (steps are counted, repeated values included).
      double v = static_cast<double>(lo);
      std::uint64_t last = 0;
      std::size_t steps = 0;
      while (std::floor(v + 0.5) <= static_cast<double>(hi)) {
        const auto r = std::min(static_cast<std::uint64_t>(std::floor(v + 0.5)), hi);
        if (r != last) out.push_back(r);
        last = r;
        v *= k;
        if (++steps > kMaxPoints)
          throw_usage("{}: range '{}' has more than {} steps (factor too close to 1?)", what, text, kMaxPoints);
      }
    }
  } else {
    std::size_t start = 0;
    while (start <= text.size()) {
      const auto comma = text.find(',', start);
      const auto item = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
      out.push_back(parse_count(item, what));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double parse_rate(std::string_view raw, std::string_view what) {
  std::string_view text = trim(raw);
  for (const std::string_view tail : {"B/s", "b/s", "/s"}) {
    if (text.size() > tail.size() && text.substr(text.size() - tail.size()) == tail) {
      text.remove_suffix(tail.size());
      break;
    }
  }
  double scale = 1;
  if (!text.empty()) {
    constexpr std::string_view kUnits = "KMGTP";
    const auto unit = kUnits.find(static_cast<char>(std::toupper(static_cast<unsigned char>(text.back()))));
    if (unit != std::string_view::npos) {
      scale = std::pow(1000.0, static_cast<double>(unit + 1));
      text.remove_suffix(1);
    }
  }
  double v = 0;
  try {
    v = parse_number(text, what) * scale;
  } catch (const UsageError&) {
    v = -1;
  }
  if (!(v > 0) || !std::isfinite(v))
    throw_usage("{}: '{}' is not a positive rate in bytes/s (e.g. 40G, 40GB/s, 4.5e10)", what, trim(raw));
  return v;
}

std::vector<std::string_view> split_list(std::string_view text) {
  std::vector<std::string_view> out;
  while (true) {
    const auto comma = text.find(',');
    out.push_back(text.substr(0, comma));
    if (comma == std::string_view::npos) return out;
    text.remove_prefix(comma + 1);
  }
}

double parse_rate_with_unit(std::string_view raw, std::string_view what) {
  const std::string_view text = trim(raw);
  bool unit = false;
  for (const std::string_view tail : {"B/s", "b/s", "/s"})
    unit = unit || (text.size() > tail.size() && text.substr(text.size() - tail.size()) == tail);
  if (!text.empty() && std::string_view("KMGTPkmgtp").find(text.back()) != std::string_view::npos) unit = true;
  if (!unit) {
    // Says what the number would have meant, so the fix is obvious.
    double bare = 0;
    try {
      bare = parse_number(text, what);
    } catch (const UsageError&) {
      return parse_rate(raw, what);  // not a number at all: parse_rate's message
    }
    throw_usage("{}: '{}' has no unit; write the rate with one: 40G or 40GB/s (GB = 1e9 bytes, as the GB/s "
                "columns), 400M, 1.5T, or {}B/s for {:g} bytes/s",
                what, text, text, bare);
  }
  return parse_rate(raw, what);
}

}  // namespace shardroof
