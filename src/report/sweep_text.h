// Small pieces of text the sweep's reporters share (report/sweep_*.cpp).
#pragma once

#include <string>
#include <vector>

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
// One chunked step against the pipeline model, on one line: "K=4: T_overlap
// 1.234 ms, model 1.200 ms (-2.8%), ideal ..., pipe 0.85; model parts ...;
// gap parts ...; GEMM x1.12 beside a collective, collective x1.05 beside a GEMM".
std::string overlap_run(const sweep::OverlapRun& run, const sweep::OverlapRunAnalysis& a);
// Over the points: the median |model error| and the largest, per K.
std::string overlap_model_summary(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a);
// The step's efficiency at D* and the D for 90% of C_peak, each way.
std::string outlook(const model::OverlapOutlook& o);
// "0.36 ms"
std::string ms(double seconds);

}  // namespace shardroof::sweep_text
