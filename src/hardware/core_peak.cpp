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

CorePeak measure_core_peak(const std::vector<CoreLoop>& loops, int repetitions, double repetition_s) {
  CorePeak peak;
  if (!clock_loop_available() || loops.empty() || repetitions < 1) return peak;
  peak.repetitions = repetitions;
  peak.repetition_s = repetition_s;
  const std::uint64_t clock_n = size_to(run_clock_loop, repetition_s);
  std::vector<std::uint64_t> n;
  for (const CoreLoop& l : loops) n.push_back(size_to([&](std::uint64_t k) { run_core_loop(l, k); }, repetition_s));
  double clock_best = 0;
  std::vector<double> best(loops.size(), 0.0);
  for (int rep = 0; rep < repetitions; ++rep) {
    const double tc = seconds_of([&] { run_clock_loop(clock_n); });
    if (tc > 0) clock_best = std::max(clock_best, kClockCyclesPerIteration * static_cast<double>(clock_n) / tc);
    for (std::size_t i = 0; i < loops.size(); ++i) {
      const double t = seconds_of([&] { run_core_loop(loops[i], n[i]); });
      if (t > 0) best[i] = std::max(best[i], flops_per_iteration(loops[i]) * static_cast<double>(n[i]) / t);
    }
  }
  peak.clock_hz = clock_best;
  for (std::size_t i = 0; i < loops.size(); ++i) peak.rates.push_back({loops[i], best[i]});
  return peak;
}

}  // namespace shardroof::hw
