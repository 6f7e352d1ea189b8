#include "hardware/core_peak.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>

namespace shardroof::hw {
namespace {

double seconds_of(const std::function<void()>& body) {
  const auto t0 = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Iterations that take about `target_s`: doubled from 1 until a run takes
// a tenth of it, then scaled (a first run also pays for waking the unit).
std::uint64_t size_to(const std::function<void(std::uint64_t)>& run, double target_s) {
  std::uint64_t n = 1;
  for (;;) {
    const double t = seconds_of([&] { run(n); });
    if (t >= target_s / 10 || n >= (std::uint64_t{1} << 40)) {
      const double scaled = std::ceil(static_cast<double>(n) * target_s / std::max(t, 1e-9));
      return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(scaled));
    }
    n *= 2;
  }
}

int isa_rank(VectorIsa v) { return static_cast<int>(v); }

}  // namespace

const LoopRate* CorePeak::rate(CoreLoop loop) const {
  for (const auto& r : rates)
    if (r.loop == loop) return &r;
  return nullptr;
}

const LoopRate* CorePeak::fastest(coll::DataType type) const {
  const LoopRate* best = nullptr;
  for (const auto& r : rates)
    if (r.loop.type == type && r.flops_per_s > 0 && (!best || r.flops_per_s > best->flops_per_s)) best = &r;
  if (!best) return nullptr;
  const LoopRate* widest = best;
  for (const auto& r : rates)
    if (r.loop.type == type && r.flops_per_s >= 0.9 * best->flops_per_s &&
        isa_rank(r.loop.isa) > isa_rank(widest->loop.isa))
      widest = &r;
  return widest;
}

const CorePeak::Sharing* CorePeak::sustained_for(coll::DataType type) const {
  for (const auto& s : sustained)
    if (s.loop.type == type && s.alone_flops_per_s > 0) return &s;
  return nullptr;
}

double flop_per_cycle(const LoopRate& r, double clock_hz) { return clock_hz > 0 ? r.flops_per_s / clock_hz : 0; }

std::vector<CoreLoop> loops_for(const CpuIsa& cpu, const std::vector<coll::DataType>& types) {
  std::vector<CoreLoop> out;
  for (const auto t : {coll::DataType::Float, coll::DataType::Double, coll::DataType::BFloat16}) {
    if (std::find(types.begin(), types.end(), t) == types.end()) continue;
    for (const VectorIsa v : kVectorIsas)
      if (loop_available(cpu, {v, t})) out.push_back({v, t});
  }
  return out;
}

namespace {

// The fastest of the repetitions of one loop, in units of work per second.
double fastest(const std::function<void(std::uint64_t)>& run, double work_per_iteration, int repetitions,
               double repetition_s) {
  const std::uint64_t n = size_to(run, repetition_s);
  double best = 0;
  for (int rep = 0; rep < repetitions; ++rep) {
    const double t = seconds_of([&] { run(n); });
    if (t > 0) best = std::max(best, work_per_iteration * static_cast<double>(n) / t);
  }
  return best;
}

}  // namespace

double measure_clock_hz(int repetitions, double repetition_s) {
  if (!clock_loop_available() || repetitions < 1) return 0;
  return fastest(run_clock_loop, kClockCyclesPerIteration, repetitions, repetition_s);
}

double measure_loop_flops(CoreLoop loop, int repetitions, double repetition_s) {
  if (repetitions < 1) return 0;
  return fastest([&](std::uint64_t k) { run_core_loop(loop, k); }, flops_per_iteration(loop), repetitions,
                 repetition_s);
}

CorePeak measure_core_peak(const std::vector<CoreLoop>& loops, int repetitions, double repetition_s,
                           const std::function<void()>& sync) {
  CorePeak peak;
  if (!clock_loop_available() || loops.empty() || repetitions < 1) return peak;
  peak.repetitions = repetitions;
  peak.repetition_s = repetition_s;
  if (sync) sync();
  peak.clock_hz = measure_clock_hz(repetitions, repetition_s);
  for (const CoreLoop& l : loops) {
    if (sync) sync();
    peak.rates.push_back({l, measure_loop_flops(l, repetitions, repetition_s)});
  }
  return peak;
}

}  // namespace shardroof::hw
