#include "report/gate_report.h"

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <utility>

namespace shardroof {
namespace {

const char* kind_name(gate::Check::Kind kind) {
  return kind == gate::Check::Kind::Expectation ? "expectation" : "baseline";
}

// "all_reduce ring out-of-place 8388608 B (8 MiB) busbw 2.31 GB/s, expected
// at least 1000 TB/s: 100% short".
std::string check_text(const gate::Check& c) {
  const gate::Metric& m = c.metric;
  const std::string measured = format_metric_value(m.value, m.unit);
  const std::string limit = format_metric_value(c.limit, m.unit);
  std::string how;
  if (c.kind == gate::Check::Kind::Expectation)
    how = fmt::format("expected at least {}: {:.3g}% short", limit, 100 * c.worse_by);
  else if (m.better == gate::Better::Neither)
    how = fmt::format("baseline {}: moved by {:.3g}%", limit, 100 * c.worse_by);
  else
    how = fmt::format("baseline {}: {:.3g}% {}", limit, 100 * c.worse_by,
                      m.better == gate::Better::Higher ? "lower" : "higher");
  return fmt::format("{} {} {}, {}", m.key, m.name, measured, how);
}

}  // namespace

std::string format_metric_value(double value, const std::string& unit) {
  if (unit.empty()) return fmt::format("{:.0f}", value);
  if (unit == "s" || unit == "s/element") {
    const double a = std::abs(value);
    const auto [scale, prefix] = a >= 1      ? std::pair{1.0, ""}
                                 : a >= 1e-3 ? std::pair{1e3, "m"}
                                 : a >= 1e-6 ? std::pair{1e6, "u"}
                                             : std::pair{1e9, "n"};
    return fmt::format("{:.4g} {}{}", value * scale, prefix, unit);
  }
  // Rates: decimal prefixes, as the tables' GB/s.
  constexpr const char* kPrefixes[] = {"", "K", "M", "G", "T", "P", "E"};
  std::size_t i = 0;
  double v = value;
  while (std::abs(v) >= 1000 && i + 1 < std::size(kPrefixes)) {
    v /= 1000;
    ++i;
  }
  return fmt::format("{:.4g} {}{}", v, kPrefixes[i], unit);
}

nlohmann::json gate_json(const gate::Verdict& verdict, int exit_status) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : verdict.checks) {
    checks.push_back({{"kind", kind_name(c.kind)},
                      {"what", c.metric.key},
                      {"metric", c.metric.name},
                      {"unit", c.metric.unit},
                      {"measured", c.metric.value},
                      {c.kind == gate::Check::Kind::Expectation ? "expected_at_least" : "baseline", c.limit},
                      {"worse_by_percent", 100 * c.worse_by},
                      {"passed", c.passed},
                      {"where", c.metric.where}});
  }
  return {{"rules", verdict.rules},       {"checks", checks},           {"notes", verdict.notes},
          {"problems", verdict.problems}, {"failed", verdict.failed()}, {"passed", verdict.passed()},
          {"exit_status", exit_status}};
}

void print_gate(std::ostream& out, const gate::Verdict& verdict) {
  for (const auto& rule : verdict.rules) out << "# gate: " << rule << "\n";
  for (const auto& c : verdict.checks) {
    if (c.passed) continue;
    out << "# gate: SHORT: " << check_text(c) << "\n";
    if (!c.metric.where.empty()) out << "#         on " << c.metric.where << "\n";
  }
  for (const auto& p : verdict.problems) out << "# gate: FAILED: " << p << "\n";
  for (const auto& n : verdict.notes) out << "# gate: note: " << n << "\n";
  out << fmt::format("# gate: {}: {} of {} checks passed\n", verdict.passed() ? "PASSED" : "FAILED",
                     verdict.checks.size() + verdict.problems.size() - verdict.failed(),
                     verdict.checks.size() + verdict.problems.size());
}

std::string gate_failure_text(const gate::Verdict& verdict) {
  const std::size_t total = verdict.checks.size() + verdict.problems.size();
  std::string first;
  for (const auto& c : verdict.checks)
    if (!c.passed && first.empty()) first = check_text(c);
  if (first.empty() && !verdict.problems.empty()) first = verdict.problems.front();
  return fmt::format("gate failed: {} of {} checks fell short (first: {})", verdict.failed(), total, first);
}

}  // namespace shardroof
