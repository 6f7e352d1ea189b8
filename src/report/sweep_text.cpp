#include "report/sweep_text.h"

#include <fmt/format.h>

namespace shardroof::sweep_text {

std::string check(const sweep::PointCheck& c) {
  if (!c.checked) return "off";
  if (c.method.empty() || c.method == "none") return "n/a";
  return c.wrong == 0 ? "ok" : fmt::format("FAIL({})", c.wrong);
}

std::string combined_check(const sweep::PointRecord& p) {
  if (!p.t_overlap || !p.overlap_check.checked) return check(p.check);
  const long long wrong = p.check.wrong + p.overlap_check.wrong;
  if (wrong > 0) return fmt::format("FAIL({})", wrong);
  return check(p.check);
}

std::string efficiency(const sweep::OverlapEfficiency& e) {
  return e.value ? fmt::format("{:.2f}", *e.value) : std::string("undef");
}

std::string d(double D) { return D >= 100 ? fmt::format("{:.0f}", D) : fmt::format("{:.1f}", D); }

std::string bound(const sweep::PointDerived& p) { return model::to_string(p.regime.bound); }

std::string ms(double seconds) { return fmt::format("{:.3f} ms", seconds * 1e3); }

}  // namespace shardroof::sweep_text
