#include "hardware/core_peak.h"

#include <fmt/format.h>

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

// The clock under a loop: a short add chain right after each repetition,
// a tenth of the repetition's length (short enough that a core lowered by
// wide vectors has not yet raised its clock again).
constexpr double kClockAfterShare = 0.1;

struct Fastest {
  double rate = 0;      // work per second, the fastest repetition's
  double clock_hz = 0;  // the fastest add chain right after a repetition; 0: none run
};

// The fastest of the repetitions of one loop, in units of work per second,
// with (where `clock_after`) the clock right after each repetition.
Fastest fastest(const std::function<void(std::uint64_t)>& run, double work_per_iteration, int repetitions,
                double repetition_s, bool clock_after) {
  const std::uint64_t n = size_to(run, repetition_s);
  const auto chain = [](std::uint64_t k) { run_clock_chain(ClockChain::AddRegister, k); };
  const std::uint64_t m = clock_after ? size_to(chain, repetition_s * kClockAfterShare) : 0;
  Fastest best;
  for (int rep = 0; rep < repetitions; ++rep) {
    const double t = seconds_of([&] { run(n); });
    if (t > 0) best.rate = std::max(best.rate, work_per_iteration * static_cast<double>(n) / t);
    if (!clock_after) continue;
    const double c = seconds_of([&] { chain(m); });
    if (c > 0)
      best.clock_hz = std::max(
          best.clock_hz, cycles_per_iteration(ClockChain::AddRegister) * static_cast<double>(m) / c);
  }
  return best;
}

double clock_of(const LoopRate& r, double clock_hz) { return r.clock_hz > 0 ? r.clock_hz : clock_hz; }

std::string loop_name(CoreLoop loop) {
  return fmt::format("{} {}", to_string(loop.isa), coll::to_string(loop.type));
}

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

double CorePeak::rank_share(coll::DataType type) const {
  // A datatype measured alone and together has its own ratio; another
  // runs on the same units, so the lowest ratio measured stands for it.
  const Sharing* s = sustained_for(type);
  double ratio = s ? s->ratio() : 1.0;
  if (!s)
    for (const auto& other : sustained)
      if (other.alone_flops_per_s > 0) ratio = std::min(ratio, other.ratio());
  return ratio < kSharedCoreShare ? ratio : 1.0;
}

std::optional<double> CorePeak::flop_per_cycle(const LoopRate& r) const {
  if (!clock_known()) return std::nullopt;
  return r.flops_per_s / clock_of(r, clock_hz);
}

std::optional<double> CorePeak::amx_flop_per_cycle() const {
  if (!clock_known() || !amx_bf16_flops_per_s) return std::nullopt;
  return *amx_bf16_flops_per_s / (amx_clock_hz > 0 ? amx_clock_hz : clock_hz);
}

std::vector<double> physical_flop_per_cycle(CoreLoop loop, bool shared) {
  std::vector<double> out = physical_flop_per_cycle(loop);
  if (!shared || !judged_per_cycle(loop)) return out;
  // Two ranks on one core's units: each gets half of what one core has.
  const std::size_t n = out.size();
  for (std::size_t i = 0; i < n; ++i) out.push_back(out[i] / 2);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<double> physical_flop_per_cycle(CoreLoop loop) {
  const double lanes_f32 = loop.isa == VectorIsa::Sse ? 4 : loop.isa == VectorIsa::Avx512 ? 16 : 8;
  const double lanes = loop.type == coll::DataType::Double ? lanes_f32 / 2 : lanes_f32;
  // The dot product's two multiply-adds per lane: one instruction per
  // cycle per unit, or one per two where a core runs it in two passes
  // (Sapphire and Emerald Rapids read 30 of 64 here).
  if (loop.type == coll::DataType::BFloat16) return {lanes * 4 / 2, lanes * 4, lanes * 4 * 2};
  if (loop.isa == VectorIsa::Fma256 || loop.isa == VectorIsa::Avx512) return {lanes * 2, lanes * 2 * 2};
  return {lanes, lanes * 2, lanes * 3, lanes * 4};
}

bool judged_per_cycle(CoreLoop loop) {
  return loop.type == coll::DataType::BFloat16 || loop.isa == VectorIsa::Fma256 || loop.isa == VectorIsa::Avx512;
}

double nearest_physical(CoreLoop loop, double flop_per_cycle, bool shared) {
  double best = 0;
  for (const double v : physical_flop_per_cycle(loop, shared))
    if (best == 0 || std::abs(std::log(flop_per_cycle / v)) < std::abs(std::log(flop_per_cycle / best))) best = v;
  return best;
}

void judge_clock(CorePeak& peak) {
  peak.clock_hz = 0;
  peak.clock_unknown.clear();
  const double add = peak.add_chain_hz, imul = peak.imul_chain_hz;
  if (!(add > 0) || !(imul > 0)) {
    peak.clock_unknown = "the clock chains did not run";
    return;
  }
  if (std::abs(add / imul - 1) > kClockAgreement) {
    peak.clock_unknown = fmt::format("the add chain read {:.2f} GHz and the multiply chain {:.2f} GHz, {:.2f}x apart "
                                     "(they must agree within {:.0f}%)",
                                     add / 1e9, imul / 1e9, add / imul, kClockAgreement * 100);
    return;
  }
  if (add < kMinClockHz || add > kMaxClockHz) {
    peak.clock_unknown = fmt::format("the chains read {:.2f} GHz, outside the {:.1f}-{:.1f} GHz of any core",
                                     add / 1e9, kMinClockHz / 1e9, kMaxClockHz / 1e9);
    return;
  }
  peak.clock_hz = add;
  for (const auto& r : peak.rates) {
    if (!(r.flops_per_s > 0) || !judged_per_cycle(r.loop)) continue;  // a slot this CPU lacks
    const double fpc = *peak.flop_per_cycle(r);
    const bool shared = peak.rank_share(r.loop.type) < 1;
    const double phys = nearest_physical(r.loop, fpc, shared);
    if (std::abs(fpc / phys - 1) > kFlopPerCycleTolerance) {
      peak.clock_unknown = fmt::format(
          "the {} loop reached {:.1f} FLOP/cycle at {:.2f} GHz, not within {:.0f}% of a physical value (nearest "
          "{:g}{}): a loop that never ran alone on its units (a loaded machine) or a clock that is not the core's",
          loop_name(r.loop), fpc, clock_of(r, add) / 1e9, kFlopPerCycleTolerance * 100, phys,
          shared ? ", half a core's counted, as the ranks share cores" : "");
      peak.clock_hz = 0;
      return;
    }
  }
}

std::vector<CoreLoop> loop_slots(const std::vector<coll::DataType>& types) {
  std::vector<CoreLoop> out;
  for (const auto t : {coll::DataType::Float, coll::DataType::Double, coll::DataType::BFloat16}) {
    if (std::find(types.begin(), types.end(), t) == types.end()) continue;
    for (const VectorIsa v : kVectorIsas)
      if (t != coll::DataType::BFloat16 || v == VectorIsa::Avx512) out.push_back({v, t});
  }
  return out;
}

std::vector<CoreLoop> loops_for(const CpuIsa& cpu, const std::vector<coll::DataType>& types) {
  std::vector<CoreLoop> out;
  for (const CoreLoop& l : loop_slots(types))
    if (loop_available(cpu, l)) out.push_back(l);
  return out;
}

CorePeak measure_core_peak(const CpuIsa& cpu, const std::vector<CoreLoop>& loops, int repetitions,
                           double repetition_s, const std::function<void()>& sync, bool with_amx) {
  CorePeak peak;
  if (!clock_loop_available() || repetitions < 1) return peak;
  peak.repetitions = repetitions;
  peak.repetition_s = repetition_s;
  if (sync) sync();
  // The two chains in turns, so that a change of clock meets both.
  for (int round = 0; round < 2; ++round)
    for (const ClockChain c : kClockChains) {
      const double hz =
          fastest([c](std::uint64_t k) { run_clock_chain(c, k); }, cycles_per_iteration(c), repetitions / 2 + 1,
                  repetition_s, false)
              .rate;
      double& slot = c == ClockChain::Multiply ? peak.imul_chain_hz : peak.add_chain_hz;
      slot = std::max(slot, hz);
    }
  for (const CoreLoop& l : loops) {
    if (sync) sync();
    LoopRate r{l, 0, 0};
    if (loop_available(cpu, l)) {
      const Fastest f = fastest([&](std::uint64_t k) { run_core_loop(l, k); }, flops_per_iteration(l), repetitions,
                                repetition_s, true);
      r.flops_per_s = f.rate;
      r.clock_hz = f.clock_hz;
    }
    peak.rates.push_back(r);
  }
  if (with_amx) {
    if (sync) sync();
    if (const AmxGrant grant = request_amx(cpu); grant.granted) {
      const Fastest f = fastest(run_amx_bf16_loop, amx_flops_per_iteration(), repetitions, repetition_s, true);
      peak.amx_bf16_flops_per_s = f.rate;
      peak.amx_clock_hz = f.clock_hz;
    } else {
      peak.amx_unavailable = grant.reason;
    }
  }
  judge_clock(peak);
  return peak;
}

}  // namespace shardroof::hw
