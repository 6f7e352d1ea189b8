#include "sweep/records.h"

#include <algorithm>
#include <utility>

namespace shardroof::sweep {

void merge_point(PointRecord& into, const PointRecord& more) {
  const auto join = [](TimeStats& a, const TimeStats& b) { a = joined(a, b); };
  // The GEMM's FLOPs (2*B*ceil(D/N)*F), recovered from either record.
  const double flops = more.flops_per_s * more.t_math.median;
  join(into.t_math, more.t_math);
  join(into.t_comm, more.t_comm);
  join(into.t_step, more.t_step);
  if (into.t_overlap && more.t_overlap) join(*into.t_overlap, *more.t_overlap);
  into.iterations += more.iterations;
  into.windows.insert(into.windows.end(), more.windows.begin(), more.windows.end());
  into.flops_per_s = into.t_math.median > 0 ? flops / into.t_math.median : 0;
  const auto combine = [](PointCheck& a, const PointCheck& b) {
    if (!b.checked) return;
    if (!a.checked) {
      a = b;
      return;
    }
    a.wrong += b.wrong;
    a.tested += b.tested;
    a.worst_ratio = std::max(a.worst_ratio, b.worst_ratio);
  };
  combine(into.check, more.check);
  combine(into.overlap_check, more.overlap_check);
}

}  // namespace shardroof::sweep
