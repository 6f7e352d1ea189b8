#include "timing/cpu_usage.h"

#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

namespace shardroof {
namespace {

double cpu_usage_rusage_seconds(int who) {
  rusage u{};
  if (getrusage(who, &u) != 0) return 0.0;
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

std::optional<NodeCpuTimes> cpu_usage_node_now() {
  // The first line is all that is parsed.
  std::ifstream in("/proc/stat");
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return parse_proc_stat(line, proc_stat_ticks_per_s());
}

double cpu_usage_wall_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int cpu_usage_online_cpus() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

}  // namespace

double proc_stat_ticks_per_s() {
  const long ticks = sysconf(_SC_CLK_TCK);
  return ticks > 0 ? static_cast<double>(ticks) : 100.0;
}

std::optional<NodeCpuTimes> parse_proc_stat(std::string_view text, double ticks_per_s) {
  const std::size_t end = text.find('\n');
  std::istringstream line{std::string(text.substr(0, end))};
  std::string name;
  if (!(line >> name) || name != "cpu" || !(ticks_per_s > 0)) return std::nullopt;
  // user nice system idle iowait irq softirq steal (guest, guest_nice follow)
  std::array<double, 8> v{};
  for (double& x : v)
    if (!(line >> x)) return std::nullopt;
  NodeCpuTimes t;
  t.idle_s = (v[3] + v[4]) / ticks_per_s;
  t.softirq_s = v[6] / ticks_per_s;
  t.steal_s = v[7] / ticks_per_s;
  return t;
}

CpuSpan::CpuSpan() {
  node_start_ = cpu_usage_node_now();
  node_wall_start_ = cpu_usage_wall_now();
  process_start_ = cpu_usage_rusage_seconds(RUSAGE_SELF);
  thread_start_ = cpu_usage_rusage_seconds(RUSAGE_THREAD);
  wall_start_ = cpu_usage_wall_now();
}

CpuSpan::Result CpuSpan::stop() const {
  Result r;
  r.wall_s = cpu_usage_wall_now() - wall_start_;
  r.thread_s = cpu_usage_rusage_seconds(RUSAGE_THREAD) - thread_start_;
  r.process_s = cpu_usage_rusage_seconds(RUSAGE_SELF) - process_start_;
  const double node_wall = cpu_usage_wall_now() - node_wall_start_;
  const std::optional<NodeCpuTimes> end = cpu_usage_node_now();
  if (node_start_ && end) {
    r.node_busy_s = node_wall * cpu_usage_online_cpus() - (end->idle_s - node_start_->idle_s) -
                    (end->steal_s - node_start_->steal_s);
    r.node_softirq_s = end->softirq_s - node_start_->softirq_s;
  }
  return r;
}

}  // namespace shardroof
