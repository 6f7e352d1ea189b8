#include "report/hardware_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/environment.h"

namespace shardroof {
namespace {

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string flops_text(double f) {
  return f >= 1e12 ? fmt::format("{:.1f} TFLOP/s", f / 1e12) : fmt::format("{:.1f} GFLOP/s", f / 1e9);
}

// "float 32.0 FLOP/cycle (512-bit FMA; AVX2+FMA 32.0, AVX 16.0, SSE 8.0)",
// in GFLOP/s where the clock is unknown.
std::string loops_text(const hw::CorePeak& core, coll::DataType type) {
  const hw::LoopRate* best = core.fastest(type);
  if (!best) return "";
  const auto value = [&](const hw::LoopRate& r) {
    const auto fpc = core.flop_per_cycle(r);
    return fpc ? fmt::format("{:.1f}", *fpc) : fmt::format("{:.1f}", r.flops_per_s / 1e9);
  };
  std::vector<std::string> others;
  for (auto it = core.rates.rbegin(); it != core.rates.rend(); ++it)
    if (it->loop.type == type && &*it != best)
      others.push_back(fmt::format("{} {}", hw::to_string(it->loop.isa), value(*it)));
  const std::string name = type == coll::DataType::BFloat16 ? "bfloat16" : std::string(coll::to_string(type));
  std::string out = fmt::format("{} {} {} ({}{}{})", name, value(*best),
                                core.clock_known() ? "FLOP/cycle" : "GFLOP/s per rank",
                                type == coll::DataType::BFloat16 ? "AVX512_BF16 dot"
                                                                 : std::string(hw::loop_text(best->loop.isa)),
                                others.empty() ? "" : "; ", join(others, ", "));
  // A loop whose clock differs from the chains' (wide vectors lowering it).
  if (core.clock_known() && best->clock_hz > 0 && std::abs(best->clock_hz / core.clock_hz - 1) > hw::kClockAgreement)
    out += fmt::format(" at {} under the loop", hw::ghz_text(best->clock_hz));
  return out;
}

// "clock 2.55 GHz (add %rcx 2.55, imul 2.56 GHz)", or why it is unknown.
std::string clock_text(const hw::CorePeak& core) {
  if (core.clock_known())
    return fmt::format("clock {} ({} {:.2f}, {} {:.2f} GHz)", hw::ghz_text(core.clock_hz),
                       hw::to_string(hw::ClockChain::AddRegister), core.add_chain_hz / 1e9,
                       hw::to_string(hw::ClockChain::Multiply), core.imul_chain_hz / 1e9);
  return "clock unknown (" + core.clock_unknown +
         (core.measurements > 1 ? fmt::format("; measured {} times", core.measurements) : std::string()) +
         "), so no figure per cycle";
}

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

// Which libraries compute bfloat16 on the tiles: none that this build links
// (Debian 12's OpenBLAS 0.3.21 and BLIS 0.9.0 have no AMX kernel).
std::string amx_users(const hw::BlasInfo& blas) {
  return fmt::format("not {} here: OpenBLAS 0.3.24 and later built with BUILD_BFLOAT16 (its SapphireRapids sbgemm), "
                     "Intel MKL (cblas_gemm_bf16bf16f32) or oneDNN compute bfloat16 on the tiles",
                     blas.library);
}

// The tile loop beside the bfloat16 ceiling.
std::string amx_text(const HardwareLimits& h) {
  if (!h.cpu.amx_bf16) return "";
  if (!h.core.amx_bf16_flops_per_s) {
    if (h.core.amx_unavailable.empty()) return "";
    return "AMX-BF16 tiles: not measured (" + h.core.amx_unavailable + ")";
  }
  const auto fpc = h.core.amx_flop_per_cycle();
  return fmt::format("AMX-BF16 tiles (tdpbf16ps, register-only): {} per rank{}; the bfloat16 GEMM here multiplies in "
                     "float ({})",
                     flops_text(*h.core.amx_bf16_flops_per_s),
                     fpc ? fmt::format(", {:.0f} FLOP/cycle of the tiles' {:.0f}", *fpc, hw::kAmxBf16FlopPerCycle) : "",
                     amx_users(h.blas));
}

bool gpu_clock_low(const hw::GpuDevice& g) {
  return g.clock_hz && g.max_clock_hz > 0 && *g.clock_hz < hw::kBelowShare * g.max_clock_hz;
}

bool pcie_narrow(const hw::GpuDevice& g) {
  return g.pcie_width && g.pcie_max_width && *g.pcie_width < *g.pcie_max_width;
}

}  // namespace

std::vector<std::string> hardware_warnings(const HardwareLimits& h, const std::vector<coll::DataType>& types) {
  std::vector<std::string> out;
  for (const auto t : types) {
    const auto v = h.blas_verdict(t);
    if (!v || !v->below_cpu || !*v->below_cpu) continue;
    std::string line = fmt::format("WARNING ({}): {}. Every GEMM rate, %peak, regime and D* here is this BLAS's, not "
                                   "the machine's.",
                                   coll::to_string(t), v->cause);
    if (!v->fix.empty()) line += " Fix: " + v->fix + ".";
    // One line per distinct cause: float and double share a kernel.
    if (std::find(out.begin(), out.end(), line) == out.end()) out.push_back(line);
  }
  if (h.gpu && gpu_clock_low(*h.gpu))
    out.push_back(fmt::format("WARNING: rank {}'s GPU ran at {} right after the timed GEMMs, {:.2f}x its maximum {}{}: "
                              "every GPU rate here is the throttled GPU's",
                              h.gpu_clock_rank, hw::ghz_text(*h.gpu->clock_hz), *h.gpu->clock_hz / h.gpu->max_clock_hz,
                              hw::ghz_text(h.gpu->max_clock_hz),
                              h.gpu->clock_limits.empty() ? "" : " (the driver names: " + h.gpu->clock_limits + ")"));
  if (h.gpu && pcie_narrow(*h.gpu))
    out.push_back(fmt::format("WARNING: the GPU's PCIe link trained at x{}, below its x{}: host-device copies run at "
                              "{:.1f} GB/s at most instead of {:.1f} GB/s (reseat the card or check the slot)",
                              *h.gpu->pcie_width, *h.gpu->pcie_max_width,
                              hw::pcie_bytes_per_s(h.gpu->pcie_gen.value_or(0), *h.gpu->pcie_width) / 1e9,
                              hw::pcie_bytes_per_s(h.gpu->pcie_max_gen.value_or(0), *h.gpu->pcie_max_width) / 1e9));
  return out;
}

std::string hardware_header_text(const HardwareLimits& h, const std::vector<coll::DataType>& types) {
  std::string out;
  if (h.gpu) {
    const auto& g = *h.gpu;
    out += fmt::format("# GPU: {}, compute capability {}.{}, {} SMs, SM clock {} at most", g.name, g.cc_major,
                       g.cc_minor, g.sm_count, hw::ghz_text(g.max_clock_hz));
    if (g.clock_hz)
      out += fmt::format(", {} now (the lowest rank, {}{})", hw::ghz_text(*g.clock_hz), h.gpu_clock_rank,
                         g.clock_limits.empty() ? "" : "; held by: " + g.clock_limits);
    if (g.pcie_gen && g.pcie_width)
      out += fmt::format("; PCIe Gen{} x{} ({:.1f} GB/s each way; the card's best Gen{} x{}; an idle link may run "
                         "at a lower generation)",
                         *g.pcie_gen, *g.pcie_width, hw::pcie_bytes_per_s(*g.pcie_gen, *g.pcie_width) / 1e9,
                         g.pcie_max_gen.value_or(0), g.pcie_max_width.value_or(0));
    if (!g.nvml.empty()) out += "; no clock now or PCIe link: " + g.nvml;
    out += "\n";
    std::vector<std::string> peaks;
    for (const auto t : types) {
      if (const auto lim = h.compute_limit(t))
        peaks.push_back(fmt::format("{} {} ({}: {})", coll::to_string(t), flops_text(lim->flops_per_s),
                                    lim->kind, lim->formula));
      else
        peaks.push_back(fmt::format("{} unknown (no table row for compute capability {}.{})", coll::to_string(t),
                                    g.cc_major, g.cc_minor));
    }
    out += "# the GPU's own peak (SMs x FLOP per cycle per SM x the maximum clock): " + join(peaks, "; ") + "\n";
  } else {
    out += fmt::format("# CPU: {} ({}); BLAS: {}\n", h.cpu_model.empty() ? "unknown model" : h.cpu_model,
                       h.cpu.x86 ? join(hw::isa_names(h.cpu), ", ") : "vector instruction sets not read on this "
                                                                          "architecture",
                       blas_text(h.blas));
    if (h.core.measured()) {
      std::vector<std::string> loops;
      std::vector<coll::DataType> shown;
      for (const auto t : types) {
        if (t == coll::DataType::BFloat16 && !h.core.fastest(coll::DataType::BFloat16)) continue;
        if (std::find(shown.begin(), shown.end(), t) != shown.end()) continue;
        shown.push_back(t);
        if (const std::string s = loops_text(h.core, t); !s.empty()) loops.push_back(s);
      }
      out += fmt::format("# the core's own peak (register-only loops, the fastest of {} repetitions of about {:.0f} ms "
                         "on every rank at once, the slowest rank's): {}; {}\n",
                         h.core.repetitions, h.core.repetition_s * 1e3, clock_text(h.core), join(loops, "; "));
      if (const std::string amx = amx_text(h); !amx.empty()) out += "# " + amx + "\n";
      std::vector<std::string> kept;
      bool sharing = false;
      for (const auto& s : h.core.sustained) {
        sharing = sharing || s.ratio() < hw::kSharedCoreShare;
        kept.push_back(fmt::format("{} {} per rank, {:.2f}x of the {} one rank gets alone", coll::to_string(s.loop.type),
                                   flops_text(s.together_flops_per_s), s.ratio(), flops_text(s.alone_flops_per_s)));
      }
      if (!kept.empty())
        out += fmt::format("# with the {} ranks of a node computing at once (the fastest loop, {} iterations of {:.0f} "
                           "ms, against the node's first rank alone just before): {}{}\n",
                           h.core.sustained_ranks, h.core.sustained_iterations, h.core.sustained_s * 1e3,
                           join(kept, "; "),
                           sharing ? ": the ranks share their cores' units (hardware threads of one core, more ranks "
                                     "than cores, or vCPUs the host runs on fewer cores), so a rank's limit is its share"
                                   : ": each rank has its own core");
    } else {
      out += "# the core's own peak: not measured (no register-only loops in this build: another architecture than x86-64, or the simulated build, whose hosts are the platform's)\n";
    }
  }
  for (const auto& w : hardware_warnings(h, types)) out += "# " + w + "\n";
  return out;
}

std::string blas_coretype_text(const HardwareLimits& h, const std::vector<coll::DataType>& types) {
  std::optional<hw::KernelVerdict> first;
  for (const auto t : types) {
    const auto v = h.blas_verdict(t);
    if (!v) continue;
    if (!first) first = v;
    if (v->below_cpu && *v->below_cpu && !v->fix_kernel.empty()) return v->fix_kernel + "\n" + v->cause + "\n";
  }
  if (!first || !first->below_cpu)
    return fmt::format("-\n{}: not judged ({})\n", blas_text(h.blas),
                       h.blas.kernel_isa ? "the core's loops were not measured" : "a kernel this program does not know");
  if (*first->below_cpu)
    return "-\n" + first->cause + " (no " + (h.blas.kernel_variable.empty() ? "kernel variable" : h.blas.kernel_variable) +
           " value fixes it)\n";
  return fmt::format("-\n{} on a CPU whose fastest {} loop is {} ({:.1f} GFLOP/s): the kernel's own level reaches "
                     "{:.2f}x of it, right for this CPU\n",
                     blas_text(h.blas), coll::to_string(first->type),
                     first->best_isa ? std::string(hw::to_string(*first->best_isa)) : std::string("?"),
                     first->best_flops / 1e9, first->best_flops > 0 ? first->kernel_flops / first->best_flops : 0.0);
}

std::string compute_share_text(double flops_per_s, const std::optional<hw::ComputeLimit>& limit) {
  if (!limit || !(limit->flops_per_s > 0)) return "";
  return fmt::format(" = {:.2f}x {} ({}: {})", flops_per_s / limit->flops_per_s, limit->name,
                     flops_text(limit->flops_per_s), limit->formula);
}

std::string reduce_share_text(double s_per_elem, const HardwareLimits& h, coll::DataType type) {
  if (h.gpu || !(s_per_elem > 0)) return "";
  const auto bound = hw::reduce_bound_s_per_elem(h.core, h.cpu, coll::size_of(type));
  const auto widest = h.cpu.widest();
  if (!bound || !widest) return "";
  return fmt::format(" = {:.1f}x the core's bound of {:.3f} ns (one {}-bit vector of sums per cycle at {})",
                     s_per_elem / *bound, *bound * 1e9, 8 * hw::vector_bytes(*widest), hw::ghz_text(h.core.clock_hz));
}

std::string pair_line_rate_text(const std::optional<hw::LineRate>& r, double W_bytes_per_s) {
  if (!r || !(r->bits_per_s > 0)) return "";
  return fmt::format("{:.2f}x of {} ({})", W_bytes_per_s / (r->bits_per_s / 8), hw::bits_text(r->bits_per_s), r->where);
}

std::string ring_line_rate_text(const hw::RingLineRate& r, double W_bytes_per_s) {
  if (r.pairs == 0) return "";
  if (r.pairs_in_memory == r.pairs) return "no line rate: the ranks share one host (their link is memory)";
  if (!r.rate)
    return fmt::format("no line rate: nothing reports the rate of the interfaces the ranks use ({} of {} pairs leave "
                       "a host)",
                       r.pairs - r.pairs_in_memory, r.pairs);
  std::string out = fmt::format("line rate {} = {:.3f} GB/s ({}: {})", hw::bits_text(r.rate->bits_per_s),
                                r.rate->bits_per_s / 8 / 1e9, r.rate->where, r.rate->source);
  if (W_bytes_per_s > 0) out += fmt::format(": W = {:.2f}x of it", W_bytes_per_s / (r.rate->bits_per_s / 8));
  if (r.pairs_in_memory > 0) out += fmt::format(" ({} of {} pairs share a host instead)", r.pairs_in_memory, r.pairs);
  if (r.pairs_unknown > 0) out += fmt::format(" ({} pairs report no rate)", r.pairs_unknown);
  return out;
}

nlohmann::json line_rate_json(const std::optional<hw::LineRate>& r, double W_bytes_per_s) {
  if (!r) return nullptr;
  return {{"bits_per_s", r->bits_per_s},
          {"bytes_per_s", r->bits_per_s / 8},
          {"interface", r->where},
          {"source", r->source},
          {"W_share", W_bytes_per_s > 0 ? nlohmann::json(W_bytes_per_s / (r->bits_per_s / 8)) : nlohmann::json()}};
}

nlohmann::json ring_line_rate_json(const hw::RingLineRate& r, double W_bytes_per_s) {
  nlohmann::json out = line_rate_json(r.rate, W_bytes_per_s);
  if (out.is_null()) out = nlohmann::json::object();
  out["pairs"] = r.pairs;
  out["pairs_in_memory"] = r.pairs_in_memory;
  out["pairs_without_rate"] = r.pairs_unknown;
  out["text"] = ring_line_rate_text(r, W_bytes_per_s);
  return out;
}

void add_hardware_json(nlohmann::json& doc, const HardwareLimits& h, const std::vector<coll::DataType>& types) {
  doc["hardware"] = hardware_json(h, types);
  if (types.empty()) return;
  if (const auto v = h.blas_verdict(types.front()); v && doc.contains("environment")) set_blas_verdict(doc["environment"], *v);
}

nlohmann::json hardware_json(const HardwareLimits& h, const std::vector<coll::DataType>& types) {
  nlohmann::json out;
  out["cpu_model"] = h.cpu_model;
  out["cpu_isa"] = hw::isa_names(h.cpu);
  out["blas"] = blas_json(h.blas, hw::isa_names(h.cpu));
  out["threads_per_rank"] = h.threads;
  if (h.core.measured()) {
    nlohmann::json core;
    core["clock_hz"] = h.core.clock_known() ? nlohmann::json(h.core.clock_hz) : nlohmann::json();
    core["clock_unknown"] = h.core.clock_known() ? nlohmann::json() : nlohmann::json(h.core.clock_unknown);
    core["add_chain_hz"] = h.core.add_chain_hz;
    core["measurements"] = h.core.measurements;
    core["imul_chain_hz"] = h.core.imul_chain_hz;
    core["clock_method"] = fmt::format(
        "dependent chains of {} instructions no renamer folds, {} (latency 1) and {} (latency 3), the fastest "
        "repetition of each; the clock is the add chain's where the two agree within {:.0f}%, it lies within "
        "{:.1f}-{:.1f} GHz, and every loop's FLOP/cycle (at the add chain's clock right after the loop) is within "
        "{:.0f}% of lanes x FLOP per lane x units (half of that too where the ranks share cores); the loops measured "
        "again where it fails, {} times at most; else null and every per-cycle figure null",
        hw::kClockChainLength, hw::to_string(hw::ClockChain::AddRegister), hw::to_string(hw::ClockChain::Multiply),
        hw::kClockAgreement * 100, hw::kMinClockHz / 1e9, hw::kMaxClockHz / 1e9, hw::kFlopPerCycleTolerance * 100,
        hw::kClockMeasurements);
    core["aggregation"] = fmt::format("the fastest of {} repetitions per rank (a hardware limit is an upper bound), "
                                      "min over the ranks, every rank at once",
                                      h.core.repetitions);
    core["loops"] = nlohmann::json::array();
    for (const auto& r : h.core.rates)
      core["loops"].push_back({{"isa", std::string(hw::to_string(r.loop.isa))},
                               {"datatype", coll::to_string(r.loop.type)},
                               {"arithmetic", r.loop.type == coll::DataType::BFloat16
                                                  ? std::string("AVX512_BF16 dot")
                                                  : std::string(hw::loop_text(r.loop.isa))},
                               {"flops_per_s", r.flops_per_s},
                               {"clock_hz_under_loop", r.clock_hz > 0 ? nlohmann::json(r.clock_hz) : nlohmann::json()},
                               {"flop_per_cycle", optional_json(h.core.flop_per_cycle(r))},
                               {"physical_flop_per_cycle", hw::physical_flop_per_cycle(r.loop)},
                               {"judged_per_cycle", hw::judged_per_cycle(r.loop)}});
    if (h.core.amx_bf16_flops_per_s)
      core["amx_bf16"] = {{"flops_per_s", *h.core.amx_bf16_flops_per_s},
                          {"flop_per_cycle", optional_json(h.core.amx_flop_per_cycle())},
                          {"limit_flop_per_cycle", hw::kAmxBf16FlopPerCycle},
                          {"used_by", amx_users(h.blas)}};
    else if (!h.core.amx_unavailable.empty())
      core["amx_bf16"] = {{"unavailable", h.core.amx_unavailable}};
    core["sustained"] = nlohmann::json::array();
    for (const auto& s : h.core.sustained)
      core["sustained"].push_back({{"isa", std::string(hw::to_string(s.loop.isa))},
                                   {"datatype", coll::to_string(s.loop.type)},
                                   {"together_flops_per_s_per_rank", s.together_flops_per_s},
                                   {"alone_flops_per_s", s.alone_flops_per_s},
                                   {"ratio", s.ratio()},
                                   {"ranks_at_once", h.core.sustained_ranks}});
    core["sustained_method"] = fmt::format(
        "the fastest loop per datatype, {} iterations of about {:.0f} ms after a warm-up, by each node's first rank "
        "alone, then by every rank at once (a barrier, the slowest rank's time, the median); ratio = together / "
        "alone, the lowest node's",
        h.core.sustained_iterations, h.core.sustained_s * 1e3);
    out["core"] = core;
  }
  if (h.gpu) {
    const auto& g = *h.gpu;
    nlohmann::json gpu = {{"name", g.name},
                          {"compute_capability", fmt::format("{}.{}", g.cc_major, g.cc_minor)},
                          {"sm_count", g.sm_count},
                          {"max_clock_hz", g.max_clock_hz}};
    gpu["clock_hz"] = g.clock_hz ? nlohmann::json(*g.clock_hz) : nlohmann::json();
    gpu["clock_rank"] = h.gpu_clock_rank;
    gpu["clock_limits"] = g.clock_limits;
    gpu["pcie_gen"] = g.pcie_gen ? nlohmann::json(*g.pcie_gen) : nlohmann::json();
    gpu["pcie_width"] = g.pcie_width ? nlohmann::json(*g.pcie_width) : nlohmann::json();
    gpu["pcie_max_gen"] = g.pcie_max_gen ? nlohmann::json(*g.pcie_max_gen) : nlohmann::json();
    gpu["pcie_max_width"] = g.pcie_max_width ? nlohmann::json(*g.pcie_max_width) : nlohmann::json();
    gpu["nvml"] = g.nvml;
    if (const auto* row = hw::sm_throughput(g.cc_major, g.cc_minor)) gpu["table_source"] = row->source;
    out["gpu"] = gpu;
  }
  out["peaks"] = nlohmann::json::array();
  out["blas_verdicts"] = nlohmann::json::array();
  for (const auto t : types) {
    if (const auto lim = h.compute_limit(t))
      out["peaks"].push_back({{"datatype", coll::to_string(t)},
                              {"flops_per_s_per_rank", lim->flops_per_s},
                              {"name", lim->name},
                              {"formula", lim->formula}});
    if (const auto v = h.blas_verdict(t)) {
      nlohmann::json env = nlohmann::json::object();
      set_blas_verdict(env, *v);
      out["blas_verdicts"].push_back(env["blas"]);
    }
  }
  return out;
}

}  // namespace shardroof
