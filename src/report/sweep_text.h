// Small pieces of text the sweep's reporters share (report/sweep_*.cpp).
#pragma once

#include <string>

#include "sweep/analysis.h"
#include "sweep/records.h"

namespace shardroof::sweep_text {

// "ok", "FAIL(3)", "off", "n/a".
std::string check(const sweep::PointCheck& c);
// The console's one check column: the step's check and, with --overlap,
// the overlapped step's; FAIL counts the wrong elements of both.
std::string combined_check(const sweep::PointRecord& p);
std::string efficiency(const sweep::OverlapEfficiency& e);  // "0.42" or "undef"
std::string d(double D);  // D* as printed: 1 decimal below 100
// A point's regime: "communication", "compute", "memory", "overhead".
std::string bound(const sweep::PointDerived& p);
// "0.36 ms"
std::string ms(double seconds);

}  // namespace shardroof::sweep_text
