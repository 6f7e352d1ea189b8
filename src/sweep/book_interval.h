// The book's D* as an interval: its inputs measured over the rounds of a
// launch (the ring probe's step times per size, hence W and alpha; the
// reduction's g; the GEMM's rate at each D from the points' T_math) are
// drawn again, each measurement (round) with replacement and then the
// samples within it, the book's model solved for each replicate, and the
// central 95% kept. Then again with one input drawn at a time (the others
// at their medians): the input whose spread alone widens the interval most
// is the one to measure better. Pure: no MPI.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/roofline.h"
#include "sweep/fit.h"
#include "sweep/records.h"

namespace shardroof::sweep {

struct BookInterval {
  Interval interval;
  std::vector<double> percentiles;  // 0th..100th of the replicates
  // Per input ("the link: W and alpha (ring probe)", "the reduction g",
  // "the GEMM's rate C(D)"): the ratio high/low of the interval with that
  // input alone drawn again; the widest first.
  std::vector<std::pair<std::string, double>> widths;
  int replicates = 0;
  int failed = 0;  // replicates where the probe's fit or the model gave no answer
};

// `book`: the ceilings of the prediction (W, alpha, g, M); `D`, `points`:
// the measured points used by the prediction (D ascending, each point's
// T_math samples and windows). The link is drawn again only where it came
// from this run's probe (not from --link-from). Empty where the book has
// no answer.
std::optional<BookInterval> book_interval(const model::Shape& shape, const RunCeilings& ceilings,
                                          const model::Ceilings& book, const std::vector<double>& D,
                                          const std::vector<const PointRecord*>& points, double level,
                                          int replicates, std::uint64_t seed);

}  // namespace shardroof::sweep
