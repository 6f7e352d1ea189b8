// A prediction that refuses absurd numbers with a usage error instead of
// answering with infinities, a D list that never ends, or an allocation
// failure. Pure (no MPI): `predict` and the fuzzer run the same code.
#pragma once

#include <string>
#include <vector>

#include "model/roofline.h"

namespace shardroof::model {

// The largest D a prediction reports: 2^53, the largest integer a double
// holds exactly (a matrix dimension is an integer; beyond this D/N and
// ceil(D/N) lose their meaning).
inline constexpr double kMaxD = 9007199254740992.0;

// UsageError unless C and W are at least 1 per second, M is 0 (off) or at
// least 1 byte/s, a and g are finite and 0 or more (g at most 1 s per
// element), and N >= 2, B, F, s positive: each message names the flag.
// With rates of 1/s or more and D <= kMaxD every time the model computes
// is finite in every unit it is printed in.
void check_inputs(const Shape& shape, const Ceilings& c);

// The prediction at `D_values` (empty: model::default_D_values around D*),
// after check_inputs; UsageError when a D* is not finite or beyond kMaxD,
// when a D is beyond kMaxD, or when T_math or T_comm is not a finite number
// of seconds. Every path is a handful of closed forms, so an answer, or the
// error, comes at once.
Prediction checked_predict(const Shape& shape, const Ceilings& c, const std::vector<double>& D_values);

}  // namespace shardroof::model
