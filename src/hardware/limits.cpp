#include "hardware/limits.h"

#include <fmt/format.h>

#include <algorithm>

namespace shardroof::hw {

std::string ghz_text(double hz) { return fmt::format("{:.2f} GHz", hz / 1e9); }

std::string loop_rate_text(const CorePeak& peak, const LoopRate& r) {
  if (const auto fpc = peak.flop_per_cycle(r)) return fmt::format("{:.1f} FLOP/cycle", *fpc);
  return fmt::format("{:.1f} GFLOP/s", r.flops_per_s / 1e9);
}

std::size_t vector_bytes(VectorIsa isa) {
  switch (isa) {
    case VectorIsa::Sse: return 16;
    case VectorIsa::Avx:
    case VectorIsa::Fma256: return 32;
    case VectorIsa::Avx512: return 64;
  }
  return 16;
}

std::optional<double> reduce_bound_s_per_elem(const CorePeak& peak, const CpuIsa& cpu, std::size_t element_bytes) {
  const auto widest = cpu.widest();
  if (!peak.clock_known() || !widest || element_bytes == 0) return std::nullopt;
  const double lanes = static_cast<double>(vector_bytes(*widest)) / static_cast<double>(element_bytes);
  return 1.0 / (std::max(lanes, 1.0) * peak.clock_hz);
}

std::optional<ComputeLimit> cpu_compute_limit(const CorePeak& peak, coll::DataType type, int threads) {
  if (!peak.measured() || threads < 1) return std::nullopt;
  const LoopRate* r = type == coll::DataType::BFloat16 ? peak.fastest(coll::DataType::BFloat16) : nullptr;
  if (!r) r = peak.fastest(type == coll::DataType::Double ? coll::DataType::Double : coll::DataType::Float);
  if (!r) return std::nullopt;
  ComputeLimit out;
  out.type = type;
  // Measured with every rank of the node at once: where ranks share a
  // core's units, the rate is already a rank's share of the core.
  out.flops_per_s = r->flops_per_s * threads;
  const double share = peak.rank_share(r->loop.type);
  const bool sharing = share < 1;
  const bool bf16_dot = r->loop.type == coll::DataType::BFloat16;
  const std::string kind =
      bf16_dot ? std::string("AVX512_BF16 dot")
               : fmt::format("{} {}", to_string(r->loop.isa),
                             r->loop.isa == VectorIsa::Sse || r->loop.isa == VectorIsa::Avx ? "multiply-add" : "FMA");
  out.kind = kind;
  out.name = threads == 1 ? fmt::format("this core's {} peak", kind) : fmt::format("{} cores' {} peak", threads, kind);
  if (sharing) out.name = fmt::format("a rank's share of the {} peak", kind);
  const std::string threads_text = fmt::format("{} thread{}", threads, threads == 1 ? "" : "s");
  if (!peak.clock_known()) {
    // No per-cycle figure, and no rate of a core alone either: the sharing
    // taken out of an unchecked rate could read above what the core can.
    out.formula = fmt::format("{:.1f} GFLOP/s per rank measured with the node's ranks at once (clock unknown) x {}",
                              r->flops_per_s / 1e9, threads_text);
    if (sharing)
      out.formula += fmt::format("; {:.2f}x of one rank alone", share);
    return out;
  }
  out.formula = fmt::format("{:.1f} FLOP/cycle x {} x {}", *peak.flop_per_cycle(*r),
                            ghz_text(r->clock_hz > 0 ? r->clock_hz : peak.clock_hz), threads_text);
  if (sharing)
    out.formula += fmt::format(" (a rank's share: the node's {} ranks computing at once reach {:.2f}x of one rank alone)",
                               peak.sustained_ranks, share);
  return out;
}

KernelVerdict judge_blas_kernel(const BlasInfo& blas, const CpuIsa& cpu, const CorePeak& peak, coll::DataType type) {
  KernelVerdict v;
  v.type = type;
  v.kernel_isa = blas.kernel_isa;
  // The GEMM's own arithmetic: bfloat16 is widened and multiplied in float
  // unless the library has a bfloat16 GEMM.
  const coll::DataType arith = type == coll::DataType::Double ? coll::DataType::Double : coll::DataType::Float;
  const LoopRate* best_same = peak.fastest(arith);
  const LoopRate* best_bf16 =
      type == coll::DataType::BFloat16 ? peak.fastest(coll::DataType::BFloat16) : nullptr;
  const LoopRate* best = best_bf16 ? best_bf16 : best_same;
  if (!best) return v;
  v.best_isa = best->loop.isa;
  v.best_flops = best->flops_per_s;
  if (!blas.kernel_isa) return v;
  const LoopRate* mine = peak.rate({*blas.kernel_isa, arith});
  if (!mine) return v;
  v.kernel_flops = mine->flops_per_s;
  const bool isa_short = best_same && mine->flops_per_s < kBelowShare * best_same->flops_per_s;
  const bool bf16_short = best_bf16 && !blas.bf16_gemm && mine->flops_per_s < kBelowShare * best_bf16->flops_per_s;
  v.below_cpu = isa_short || bf16_short;
  if (isa_short) {
    v.cause = fmt::format("{} runs its {} kernel ({}, {}) on a CPU whose {} loop reaches {}: its {} GEMMs can "
                          "reach at most {:.2f}x of this core",
                          blas.library, blas.kernel, to_string(*blas.kernel_isa), loop_rate_text(peak, *mine),
                          to_string(best_same->loop.isa), loop_rate_text(peak, *best_same), coll::to_string(arith),
                          mine->flops_per_s / best_same->flops_per_s);
    v.fix_kernel = kernel_for(blas.family, best_same->loop.isa, cpu);
    const std::string var = blas.kernel_variable;
    const std::string setting = kernel_setting(blas, v.fix_kernel);
    if (!v.fix_kernel.empty())
      v.fix = fmt::format("run with --blas-kernel auto (the default: shardroof then sets {}={} itself where {} is "
                          "not set) or --blas-kernel {}, or put {}={} in the environment of every rank",
                          var, setting, var, v.fix_kernel, var, setting);
  }
  if (bf16_short) {
    if (!v.cause.empty()) v.cause += "; and ";
    v.cause += fmt::format("bfloat16 is multiplied in float ({} has no bfloat16 GEMM here), so the CPU's "
                           "AVX512_BF16 dot product ({}) is unused",
                           blas.library, loop_rate_text(peak, *best_bf16));
    if (v.fix.empty())
      v.fix = "none in this build: a BLAS with a bfloat16 GEMM (OpenBLAS built with BUILD_BFLOAT16=1, sbgemm) would "
              "use AVX512_BF16; or time float instead";
  }
  return v;
}

}  // namespace shardroof::hw
