#include "report/stability_report.h"

#include <fmt/format.h>

namespace shardroof {
namespace {

std::string labels_text(const stability::Level& l, const LabelText& label) {
  if (!label) return "";
  const std::string a = label(l.first_label), b = label(l.last_label);
  if (a.empty() && b.empty()) return "";
  if (a == b || b.empty()) return fmt::format(" ({})", a);
  if (a.empty()) return fmt::format(" ({})", b);
  return fmt::format(" ({} .. {})", a, b);
}

}  // namespace

std::string stability_text(const stability::Stability& s, const std::string& what, const ValueText& value,
                           const LabelText& label) {
  using stability::Verdict;
  const double span = s.levels.empty() ? 0 : s.levels.back().end_s - s.levels.front().begin_s;
  const double percent = 100 * stability::ChangePointOptions{}.significance;
  switch (s.verdict) {
    case Verdict::TooFew:
      return fmt::format("{}: too few samples to test ({} samples in {} blocks)", what, s.samples, s.blocks);
    case Verdict::Stable:
      return fmt::format("{}: stable, one distribution over {} samples in {:.1f} s (median {}; no change point "
                         "at {:g}%)",
                         what, s.samples, span, value(s.median), percent);
    case Verdict::Drift:
      return fmt::format("{}: drift, {} change point{} at {:g}% but every level within {:.2f}x of the others "
                         "(median {}; a change matters from {:.2f}x)",
                         what, s.change_points, s.change_points == 1 ? "" : "s", percent, s.max_ratio,
                         value(s.median), s.material_ratio);
    case Verdict::Unstable: {
      std::string out = fmt::format("UNSTABLE: {} changed {:.1f}x during the run:", what, s.max_ratio);
      for (std::size_t i = 0; i < s.levels.size(); ++i) {
        const auto& l = s.levels[i];
        const std::string where = labels_text(l, label);
        if (i == 0)
          out += fmt::format(" {} until {:.1f} s{}", value(l.median), s.levels[1].begin_s, where);
        else if (i + 1 == s.levels.size())
          out += fmt::format(", {} after{}", value(l.median), where);
        else
          out += fmt::format(", {} from {:.1f} to {:.1f} s{}", value(l.median), l.begin_s, s.levels[i + 1].begin_s,
                             where);
      }
      return out;
    }
  }
  return what;
}

std::string stability_method(const stability::ChangePointOptions& options, std::size_t max_blocks) {
  return fmt::format(
      "blocks of consecutive samples within each measurement (log of the block median; measurements shorter "
      "than a block joined in time order, at most {} blocks), in time order; E-divisive means change points "
      "with a {}-permutation test at {:g}% (stopped once its verdict is settled); neighbouring levels closer than "
      "material_ratio merged; stable: no change point, drift: change points within material_ratio, "
      "unstable: levels further apart",
      max_blocks, options.permutations, 100 * options.significance);
}

nlohmann::json stability_json(const stability::Stability& s) {
  nlohmann::json levels = nlohmann::json::array();
  for (const auto& l : s.levels)
    levels.push_back({{"median", l.median},
                      {"begin_s", l.begin_s},
                      {"end_s", l.end_s},
                      {"samples", l.samples},
                      {"labels", l.labels}});
  nlohmann::json states = nlohmann::json::array();
  for (const auto& st : s.states) {
    nlohmann::json spans = nlohmann::json::array();
    for (const auto& [b, e] : st.spans) spans.push_back({b, e});
    states.push_back({{"median", st.median}, {"samples", st.samples}, {"share", st.share}, {"spans_s", spans}});
  }
  return {{"verdict", stability::to_string(s.verdict)},
          {"levels", levels},
          {"states", states},
          {"max_ratio", s.max_ratio},
          {"material_ratio", s.material_ratio},
          {"change_points", s.change_points},
          {"p_values", s.p_values},
          {"blocks", s.blocks},
          {"block_samples", s.block_samples},
          {"samples", s.samples},
          {"median", s.median},
          {"noise_sd_log", s.noise_sd_log},
          {"method", stability_method()}};
}

}  // namespace shardroof
