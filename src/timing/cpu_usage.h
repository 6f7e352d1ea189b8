// CPU time taken over a span of wall time, for the overlap model's
// transport term (model/pipeline.h, cpu_interference): what a collective
// running alone costs the cores the GEMM would use beside it.
//
// Three views, because no one of them holds it all on Linux:
//  - this thread (getrusage RUSAGE_THREAD): the collective's calls, its
//    copies and reductions, its system calls;
//  - this process (RUSAGE_SELF): the above and the library's own threads;
//  - the node (/proc/stat, all CPUs): every process and the kernel's
//    network work (softirq), wherever it ran. Without
//    CONFIG_IRQ_TIME_ACCOUNTING a softirq is charged to the task it
//    interrupted, so a shaper's timer work can land on an idle CPU or on
//    another rank; only the node's total holds it.
// The node's busy time is its CPUs' time less their idle, iowait and steal
// time: on a tickless kernel (NO_HZ) the idle time is kept to the
// microsecond, so only the file's unit (USER_HZ, 10 ms) limits it, once
// per read. Its user, system and softirq columns are sampled at the tick
// instead (a CPU busy a fraction u of n ticks counts Binomial(n, u)), so
// the softirq share is printed as a sample, not used in the model.
#pragma once

#include <optional>
#include <string_view>

namespace shardroof {

struct NodeCpuTimes {
  double idle_s = 0;     // idle + iowait, all CPUs
  double steal_s = 0;    // taken by the hypervisor
  double softirq_s = 0;  // sampled at the tick
};

// The aggregate "cpu" line of /proc/stat's text, in seconds at
// `ticks_per_s`; empty where the line is missing or short.
std::optional<NodeCpuTimes> parse_proc_stat(std::string_view text, double ticks_per_s);

// /proc/stat's clock ticks per second (USER_HZ).
double proc_stat_ticks_per_s();

// Wall time a span's reads must cover before the node's share is read from
// them: each read is off by up to one USER_HZ unit per CPU total, 10 ms, so
// 0.1 s of spans keeps that near a tenth of a core at worst, and the
// unbiased errors of many reads mostly cancel.
inline constexpr double kMinNodeSpanS = 0.1;

// The CPU time and wall time of a span. The node is read first when it
// starts and last when it stops, so that its reads fall outside the
// thread's and the process's counts; the node's busy time is taken over
// the span between its own reads.
class CpuSpan {
 public:
  CpuSpan();
  struct Result {
    double wall_s = 0;
    double thread_s = 0;
    double process_s = 0;
    // Empty where /proc/stat cannot be read.
    std::optional<double> node_busy_s;     // CPUs x span - idle - iowait - steal
    std::optional<double> node_softirq_s;  // sampled
  };
  Result stop() const;

 private:
  std::optional<NodeCpuTimes> node_start_;
  double node_wall_start_ = 0;
  double process_start_ = 0;
  double thread_start_ = 0;
  double wall_start_ = 0;
};

}  // namespace shardroof
