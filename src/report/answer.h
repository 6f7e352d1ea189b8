// The answer first: the few lines a user came for, at the end of every
// command's default output and at the top of `shardroof report`'s page.
// Made from the same views (report/bringup.h) in both places, so the
// console and the page say the same words:
//   - the answer, with its interval;
//   - whether it can be trusted (stable or not, well- or ill-conditioned);
//   - the prediction beside it;
//   - the limiting ceiling as a share of the hardware's own limit;
//   - one line of what to do next, where the record names something.
// The rows and diagnostics behind it stay in the JSON and behind -v.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "report/bringup.h"

namespace shardroof {

// The most lines an answer block has, its title included.
inline constexpr std::size_t kAnswerMaxLines = 12;

struct AnswerBlock {
  std::string title;               // "sweep: all_reduce ring, float, B=1024 F=1024, 2 ranks"
  std::vector<std::string> lines;  // at most kAnswerMaxLines - 1
};

AnswerBlock sweep_answer(const bringup::SweepView& s);
AnswerBlock coll_answer(const bringup::CollView& c);
AnswerBlock link_answer(const bringup::LinkView& l);
AnswerBlock peak_answer(const bringup::PeakView& p);
AnswerBlock predict_answer(const bringup::PredictView& p);
AnswerBlock combine_answer(const bringup::CombineView& c);

// The block of the first record in `b` (a command's own record): what the
// console prints at the end of a run. Empty title when `b` holds none.
AnswerBlock answer_of(const bringup::BringUp& b);

// A bring-up's answer on the page: the combined launches' (else the
// sweep's) block first, then one line per link, coll and peak record.
AnswerBlock bringup_answer(const bringup::BringUp& b);

// "# answer: TITLE" and each line, at most kAnswerMaxLines in all.
void print_answer(std::ostream& out, const AnswerBlock& a);

// The pairs whose W is below kSlowPairShare of the median W: the slow
// pairs a link matrix names.
inline constexpr double kSlowPairShare = 0.8;
std::vector<bringup::LinkPair> slow_pairs(const bringup::LinkView& l, double& median_W);

// Numbers as the answer writes them: "104", "1.23k" is never used (D is
// an integer count); rates with their unit ("45.1 GFLOP/s", "2.31 GB/s").
std::string count_text(double v);
std::string rate_text(double v, const std::string& unit);  // unit "FLOP/s" or "B/s"
std::string time_text(double seconds);                     // "12.3 us", "1.20 ms"
std::string bounds_text(const bringup::Bounds& b);         // "[95, 118]", "(0, 118]", "[95, inf)"

}  // namespace shardroof
