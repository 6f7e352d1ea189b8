// hardware/: the BLAS kernel table and the fix it names, the verdict on
// synthetic core peaks (cores whose wider levels are faster, and cores
// that split wide instructions), the core's and a GPU's peak formulas, the
// PCIe rates, the line rates of links between synthetic hosts, and the
// loops themselves on this CPU (what they measure, within wide physical
// bounds: no timing threshold).
#include <gtest/gtest.h>

#include <algorithm>

#include "ceilings/records.h"
#include "hardware/blas_kernel.h"
#include "hardware/core_loops.h"
#include "hardware/core_peak.h"
#include "hardware/cpu_isa.h"
#include "hardware/gpu_peak.h"
#include "hardware/limits.h"
#include "hardware/line_rate.h"
#include "report/hardware_report.h"

namespace shardroof::hw {
namespace {

using coll::DataType;

CpuIsa avx512_cpu(bool bf16) {
  CpuIsa c;
  c.x86 = true;
  c.sse2 = c.sse3 = c.ssse3 = c.sse41 = c.sse42 = true;
  c.avx = c.fma = c.avx2 = c.f16c = true;
  c.avx512f = c.avx512cd = c.avx512bw = c.avx512dq = c.avx512vl = true;
  c.avx512_bf16 = bf16;
  return c;
}

CpuIsa avx2_cpu() {
  CpuIsa c;
  c.x86 = true;
  c.sse2 = c.sse3 = c.ssse3 = c.sse41 = c.sse42 = true;
  c.avx = c.fma = c.avx2 = true;
  return c;
}

// FLOP/cycle per level for float (double half of it), at 3 GHz.
CorePeak peak_of(double sse, double avx, double fma256, double avx512, double bf16 = 0) {
  CorePeak p;
  p.clock_hz = p.add_chain_hz = p.imul_chain_hz = 3e9;
  p.repetitions = 30;
  p.repetition_s = 1e-3;
  const double per_level[] = {sse, avx, fma256, avx512};
  for (const DataType t : {DataType::Float, DataType::Double})
    for (std::size_t i = 0; i < 4; ++i)
      if (per_level[i] > 0)
        p.rates.push_back({{kVectorIsas[i], t}, per_level[i] * 3e9 / (t == DataType::Double ? 2 : 1)});
  if (bf16 > 0) p.rates.push_back({{VectorIsa::Avx512, DataType::BFloat16}, bf16 * 3e9});
  return p;
}

BlasInfo openblas(const std::string& kernel) {
  BlasInfo b;
  b.family = BlasFamily::OpenBlas;
  b.kernel_variable = "OPENBLAS_CORETYPE";
  b.library = "OpenBLAS";
  b.version = "0.3.21";
  b.kernel = kernel;
  b.kernel_isa = openblas_kernel_isa(kernel);
  return b;
}

TEST(BlasKernel, OpenBlasKernelsMapToTheirVectorLevel) {
  EXPECT_EQ(openblas_kernel_isa("Prescott"), VectorIsa::Sse);
  EXPECT_EQ(openblas_kernel_isa("NEHALEM"), VectorIsa::Sse);
  EXPECT_EQ(openblas_kernel_isa("Sandybridge"), VectorIsa::Avx);
  EXPECT_EQ(openblas_kernel_isa("Haswell"), VectorIsa::Fma256);
  EXPECT_EQ(openblas_kernel_isa("Zen"), VectorIsa::Fma256);
  EXPECT_EQ(openblas_kernel_isa("SkylakeX"), VectorIsa::Avx512);
  EXPECT_EQ(openblas_kernel_isa("cooperlake"), VectorIsa::Avx512);
  EXPECT_EQ(openblas_kernel_isa("NEOVERSEN1"), std::nullopt);
  EXPECT_EQ(openblas_kernel_isa(""), std::nullopt);
}

TEST(BlasKernel, TheFixIsTheCoretypeOfTheLevelTheCpuHas) {
  EXPECT_EQ(openblas_coretype_for(VectorIsa::Avx512, avx512_cpu(false)), "SkylakeX");
  EXPECT_EQ(openblas_coretype_for(VectorIsa::Fma256, avx512_cpu(false)), "Haswell");
  EXPECT_EQ(openblas_coretype_for(VectorIsa::Avx, avx2_cpu()), "Sandybridge");
  EXPECT_EQ(openblas_coretype_for(VectorIsa::Sse, avx2_cpu()), "");
  // AVX-512F without the subsets SkylakeX's kernels use: the AVX2 kernel.
  CpuIsa knl = avx512_cpu(false);
  knl.avx512bw = knl.avx512vl = false;
  EXPECT_EQ(openblas_coretype_for(VectorIsa::Avx512, knl), "Haswell");
}

TEST(BlasKernel, VersionFromTheConfigString) {
  EXPECT_EQ(openblas_version("OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Prescott MAX_THREADS=64"), "0.3.21");
  EXPECT_EQ(openblas_version("OpenBLAS 0.3.26.dev DYNAMIC_ARCH"), "0.3.26.dev");
  EXPECT_EQ(openblas_version("something else"), "");
  EXPECT_EQ(openblas_version("OpenBLAS"), "");
}

TEST(BlasKernel, ThisProcessNamesItsKernel) {
  const BlasInfo b = query_blas();
  EXPECT_EQ(b.family, linked_blas_family());
  EXPECT_FALSE(b.library.empty());
  EXPECT_FALSE(b.config.empty());
  if (b.family != BlasFamily::Other) {
    EXPECT_FALSE(b.kernel.empty());
    EXPECT_EQ(b.kernel_variable, kernel_variable(b.family));
    // A kernel of the library's own table: the verdict can judge it.
    EXPECT_TRUE(b.kernel_isa) << b.kernel;
  }
}

// An Intel Xeon with two 512-bit FMA units: SSE 8 (mul + add on two
// ports), AVX2+FMA 32, AVX-512 64 FLOP/cycle. Debian's 0.3.21 gives it
// Prescott: a quarter of the core, and SkylakeX fixes it.
TEST(KernelVerdict, AnSseKernelOnAnAvx512XeonIsBelowWithTheFix) {
  const CorePeak p = peak_of(8, 16, 32, 64);
  const KernelVerdict v = judge_blas_kernel(openblas("Prescott"), avx512_cpu(true), p, DataType::Float);
  ASSERT_TRUE(v.below_cpu.has_value());
  EXPECT_TRUE(*v.below_cpu);
  EXPECT_EQ(v.kernel_isa, VectorIsa::Sse);
  EXPECT_EQ(v.best_isa, VectorIsa::Avx512);
  EXPECT_DOUBLE_EQ(v.kernel_flops / v.best_flops, 0.125);
  EXPECT_EQ(v.fix_kernel, "SkylakeX");
  EXPECT_NE(v.fix.find("--blas-kernel auto"), std::string::npos);
  EXPECT_NE(v.fix.find("OPENBLAS_CORETYPE=SkylakeX"), std::string::npos);
  EXPECT_NE(v.cause.find("Prescott"), std::string::npos);
  // The same holds for double.
  const KernelVerdict d = judge_blas_kernel(openblas("Prescott"), avx512_cpu(true), p, DataType::Double);
  EXPECT_TRUE(d.below_cpu.value_or(false));
}

TEST(KernelVerdict, AnAvx2KernelIsBelowACoreWithTwo512BitUnits) {
  const KernelVerdict v =
      judge_blas_kernel(openblas("Haswell"), avx512_cpu(false), peak_of(8, 16, 32, 64), DataType::Float);
  EXPECT_TRUE(v.below_cpu.value_or(false));
  EXPECT_EQ(v.fix_kernel, "SkylakeX");
}

// AMD Zen 4 runs a 512-bit FMA as two 256-bit halves: AVX2+FMA and
// AVX-512 both reach 32 FLOP/cycle, so an AVX2 kernel is not below.
TEST(KernelVerdict, AnAvx2KernelIsNotBelowACoreThatSplitsWideInstructions) {
  const CorePeak p = peak_of(16, 32, 32, 32);
  const KernelVerdict v = judge_blas_kernel(openblas("Zen"), avx512_cpu(false), p, DataType::Float);
  ASSERT_TRUE(v.below_cpu.has_value());
  EXPECT_FALSE(*v.below_cpu);
  EXPECT_TRUE(v.fix.empty());
  EXPECT_TRUE(v.cause.empty());
  // The fastest loop among ties is the widest.
  EXPECT_EQ(v.best_isa, VectorIsa::Avx512);
  // SSE is half of it: below.
  EXPECT_TRUE(judge_blas_kernel(openblas("Prescott"), avx512_cpu(false), p, DataType::Float).below_cpu.value_or(false));
}

TEST(KernelVerdict, Bfloat16MultipliedInFloatIsBelowAnAvx512Bf16CoreWithNoCoretypeFix) {
  const CorePeak p = peak_of(16, 32, 32, 32, 64);
  const KernelVerdict v = judge_blas_kernel(openblas("Cooperlake"), avx512_cpu(true), p, DataType::BFloat16);
  EXPECT_TRUE(v.below_cpu.value_or(false));
  EXPECT_EQ(v.fix_kernel, "");
  EXPECT_NE(v.cause.find("AVX512_BF16"), std::string::npos);
  EXPECT_NE(v.fix.find("BUILD_BFLOAT16"), std::string::npos);
  // Float on the same core is fine.
  EXPECT_FALSE(judge_blas_kernel(openblas("Cooperlake"), avx512_cpu(true), p, DataType::Float).below_cpu.value_or(true));
  // A library with a bfloat16 GEMM would not be judged below for it.
  BlasInfo with = openblas("Cooperlake");
  with.bf16_gemm = true;
  EXPECT_FALSE(judge_blas_kernel(with, avx512_cpu(true), p, DataType::BFloat16).below_cpu.value_or(true));
}

TEST(KernelVerdict, UnknownKernelOrNothingMeasuredIsNoVerdict) {
  const CorePeak p = peak_of(8, 16, 32, 64);
  EXPECT_FALSE(judge_blas_kernel(openblas("ARMV8"), avx512_cpu(false), p, DataType::Float).below_cpu.has_value());
  EXPECT_FALSE(judge_blas_kernel(openblas("Prescott"), avx512_cpu(false), CorePeak{}, DataType::Float)
                   .below_cpu.has_value());
}

TEST(CoreLimit, TheFastestLoopTimesTheThreads) {
  const CorePeak p = peak_of(8, 16, 32, 64, 128);
  const auto one = cpu_compute_limit(p, DataType::Float, 1);
  ASSERT_TRUE(one);
  EXPECT_DOUBLE_EQ(one->flops_per_s, 64 * 3e9);
  EXPECT_EQ(one->name, "this core's AVX-512 FMA peak");
  EXPECT_EQ(one->formula, "64.0 FLOP/cycle x 3.00 GHz x 1 thread");
  const auto four = cpu_compute_limit(p, DataType::Double, 4);
  ASSERT_TRUE(four);
  EXPECT_DOUBLE_EQ(four->flops_per_s, 4 * 32 * 3e9);
  EXPECT_EQ(four->name, "4 cores' AVX-512 FMA peak");
  // bfloat16: the AVX512_BF16 dot where the core has it, else float's.
  EXPECT_DOUBLE_EQ(cpu_compute_limit(p, DataType::BFloat16, 1)->flops_per_s, 128 * 3e9);
  EXPECT_DOUBLE_EQ(cpu_compute_limit(peak_of(8, 16, 32, 64), DataType::BFloat16, 1)->flops_per_s, 64 * 3e9);
  EXPECT_FALSE(cpu_compute_limit(CorePeak{}, DataType::Float, 1));
}

TEST(CoreLimit, ReductionBoundIsOneWidestVectorPerCycle) {
  const CorePeak p = peak_of(8, 16, 32, 64);
  EXPECT_DOUBLE_EQ(*reduce_bound_s_per_elem(p, avx512_cpu(false), 4), 1.0 / (16 * 3e9));
  EXPECT_DOUBLE_EQ(*reduce_bound_s_per_elem(p, avx2_cpu(), 8), 1.0 / (4 * 3e9));
  EXPECT_FALSE(reduce_bound_s_per_elem(CorePeak{}, avx2_cpu(), 4));
}

TEST(CoreLoops, FlopsPerIterationCountLanesAndFusedOperations) {
  EXPECT_EQ(flops_per_iteration({VectorIsa::Sse, DataType::Float}), 12 * 4);
  EXPECT_EQ(flops_per_iteration({VectorIsa::Sse, DataType::Double}), 12 * 2);
  EXPECT_EQ(flops_per_iteration({VectorIsa::Avx, DataType::Float}), 12 * 8);
  EXPECT_EQ(flops_per_iteration({VectorIsa::Fma256, DataType::Float}), 12 * 8 * 2);
  EXPECT_EQ(flops_per_iteration({VectorIsa::Fma256, DataType::Double}), 12 * 4 * 2);
  EXPECT_EQ(flops_per_iteration({VectorIsa::Avx512, DataType::Float}), 24 * 16 * 2);
  EXPECT_EQ(flops_per_iteration({VectorIsa::Avx512, DataType::BFloat16}), 24 * 16 * 4);
}

// The loops on this CPU, whatever it is: only bounds that hold on every
// x86 core. The chains read a clock no core exceeds (a register add and a
// multiply are never folded at rename); where the clock passed its checks,
// every loop sits within 10% of a physical FLOP per cycle; where it did
// not, the reason is given and no per-cycle figure exists.
TEST(CoreLoops, OnThisCpuEveryAvailableLoopRunsWithinPhysicalBounds) {
  const CpuIsa& cpu = cpu_isa();
  const auto loops = loops_for(cpu, {DataType::Float, DataType::Double, DataType::BFloat16});
  if (!clock_loop_available() || loops.empty()) GTEST_SKIP() << "no register-only loops on this architecture";
  const CorePeak p = measure_core_peak(cpu, loops, 5, 2e-4);
  ASSERT_TRUE(p.measured());
  for (const double hz : {p.add_chain_hz, p.imul_chain_hz}) {
    EXPECT_GT(hz, 0.2e9);
    EXPECT_LT(hz, 8e9);
  }
  EXPECT_EQ(p.rates.size(), loops.size());
  for (const auto& r : p.rates) {
    EXPECT_GT(r.flops_per_s, 0) << to_string(r.loop.isa) << " " << coll::to_string(r.loop.type);
    const auto fpc = p.flop_per_cycle(r);
    EXPECT_EQ(fpc.has_value(), p.clock_known());
    if (fpc && judged_per_cycle(r.loop)) {
      EXPECT_NEAR(*fpc / nearest_physical(r.loop, *fpc), 1.0, kFlopPerCycleTolerance) << to_string(r.loop.isa);
    }
  }
  if (p.clock_known()) {
    EXPECT_GE(p.clock_hz, kMinClockHz);
    EXPECT_LE(p.clock_hz, kMaxClockHz);
    EXPECT_TRUE(p.clock_unknown.empty());
  } else {
    EXPECT_FALSE(p.clock_unknown.empty());
  }
  // The widest level the CPU has is among the loops for float.
  ASSERT_TRUE(cpu.widest());
  EXPECT_TRUE(p.rate({*cpu.widest(), DataType::Float}));
}

// The tile loop where the CPU has AMX-BF16: a physical bound alone.
TEST(CoreLoops, TheTileLoopStaysUnderTheTilesLimit) {
  const CpuIsa& cpu = cpu_isa();
  if (!cpu.amx_bf16) GTEST_SKIP() << "no AMX-BF16 on this CPU";
  const CorePeak p = measure_core_peak(cpu, loops_for(cpu, {DataType::Float}), 5, 2e-4, {}, true);
  if (!p.amx_bf16_flops_per_s) GTEST_SKIP() << p.amx_unavailable;
  EXPECT_GT(*p.amx_bf16_flops_per_s, 0);
  if (const auto fpc = p.amx_flop_per_cycle()) {
    EXPECT_LE(*fpc, kAmxBf16FlopPerCycle * (1 + kFlopPerCycleTolerance));
  }
}

TEST(GpuPeak, HopperFromItsSmsAndClock) {
  GpuDevice h100;
  h100.name = "NVIDIA H100 80GB HBM3";
  h100.cc_major = 9;
  h100.cc_minor = 0;
  h100.sm_count = 132;
  h100.max_clock_hz = 1.98e9;
  EXPECT_DOUBLE_EQ(gpu_compute_limit(h100, DataType::BFloat16, false)->flops_per_s, 132 * 4096 * 1.98e9);
  EXPECT_DOUBLE_EQ(gpu_compute_limit(h100, DataType::Half, false)->flops_per_s, 132 * 4096 * 1.98e9);
  EXPECT_DOUBLE_EQ(gpu_compute_limit(h100, DataType::Float, false)->flops_per_s, 132 * 256 * 1.98e9);
  EXPECT_DOUBLE_EQ(gpu_compute_limit(h100, DataType::Float, true)->flops_per_s, 132 * 2048 * 1.98e9);
  EXPECT_DOUBLE_EQ(gpu_compute_limit(h100, DataType::Double, false)->flops_per_s, 132 * 256 * 1.98e9);
  // The published dense bfloat16 figure, 989 TFLOP/s, is the same units at 1830 MHz.
  h100.max_clock_hz = 1.83e9;
  EXPECT_NEAR(gpu_compute_limit(h100, DataType::BFloat16, false)->flops_per_s, 989.4e12, 0.1e12);
  const auto lim = gpu_compute_limit(h100, DataType::BFloat16, false);
  EXPECT_EQ(lim->name, "this GPU's BF16 tensor peak");
  EXPECT_NE(lim->formula.find("132 SMs x 4096 FLOP/cycle x 1.83 GHz"), std::string::npos);
}

TEST(GpuPeak, AmpereAndVoltaRowsAndTheirSources) {
  GpuDevice a100;
  a100.cc_major = 8;
  a100.sm_count = 108;
  a100.max_clock_hz = 1.41e9;
  EXPECT_NEAR(gpu_compute_limit(a100, DataType::BFloat16, false)->flops_per_s, 312e12, 0.5e12);
  EXPECT_NEAR(gpu_compute_limit(a100, DataType::Double, false)->flops_per_s, 19.5e12, 0.1e12);
  EXPECT_NEAR(gpu_compute_limit(a100, DataType::Float, true)->flops_per_s, 156e12, 0.5e12);
  GpuDevice v100;
  v100.cc_major = 7;
  v100.sm_count = 80;
  v100.max_clock_hz = 1.53e9;
  EXPECT_NEAR(gpu_compute_limit(v100, DataType::Half, false)->flops_per_s, 125e12, 0.5e12);
  EXPECT_FALSE(gpu_compute_limit(v100, DataType::BFloat16, false));  // no bfloat16 tensor cores
  for (const auto& [major, minor] : {std::pair{7, 0}, std::pair{8, 0}, std::pair{9, 0}}) {
    const SmThroughput* row = sm_throughput(major, minor);
    ASSERT_TRUE(row);
    EXPECT_NE(std::string(row->source).find("whitepaper"), std::string::npos);
  }
}

TEST(GpuPeak, NoRowNoClockNoPeak) {
  GpuDevice g;
  g.cc_major = 12;
  g.sm_count = 100;
  g.max_clock_hz = 2e9;
  EXPECT_FALSE(gpu_compute_limit(g, DataType::BFloat16, false));
  g.cc_major = 9;
  g.max_clock_hz = 0;
  EXPECT_FALSE(gpu_compute_limit(g, DataType::BFloat16, false));
}

TEST(GpuPeak, PcieRatesPerGenerationAndWidth) {
  EXPECT_DOUBLE_EQ(pcie_bytes_per_s(5, 16), 16 * 32e9 * 128 / 130 / 8);  // 63.0 GB/s
  EXPECT_NEAR(pcie_bytes_per_s(4, 16), 31.5e9, 0.1e9);
  EXPECT_NEAR(pcie_bytes_per_s(3, 8), 7.88e9, 0.01e9);
  EXPECT_DOUBLE_EQ(pcie_bytes_per_s(2, 1), 0.5e9);
  EXPECT_EQ(pcie_bytes_per_s(0, 16), 0);
  EXPECT_EQ(pcie_bytes_per_s(5, 0), 0);
}

TEST(LineRate, RatesInTcsWordsAndInfinibandsWords) {
  EXPECT_DOUBLE_EQ(*parse_bits_per_s("1gbit"), 1e9);
  EXPECT_DOUBLE_EQ(*parse_bits_per_s("0.5gbit"), 0.5e9);
  EXPECT_DOUBLE_EQ(*parse_bits_per_s("500Mbit"), 500e6);
  EXPECT_DOUBLE_EQ(*parse_bits_per_s("100G"), 100e9);
  EXPECT_DOUBLE_EQ(*parse_bits_per_s("1e9"), 1e9);
  EXPECT_FALSE(parse_bits_per_s("fast"));
  EXPECT_FALSE(parse_bits_per_s("1gbyte"));
  EXPECT_FALSE(parse_bits_per_s("-1gbit"));
  EXPECT_DOUBLE_EQ(*parse_ib_rate("400 Gb/sec (4X NDR)"), 400e9);
  EXPECT_DOUBLE_EQ(*parse_ib_rate("100 Gb/sec (4X EDR)"), 100e9);
  EXPECT_FALSE(parse_ib_rate("10 Mb/s"));
  EXPECT_EQ(bits_text(1e9), "1 Gbit/s");
  EXPECT_EQ(bits_text(0.5e9), "500 Mbit/s");
}

HostNet host(const std::string& name, const std::string& ns, std::uint32_t address, double bits) {
  HostNet h;
  h.host = name;
  h.netns = ns;
  NetInterface nif;
  nif.name = "eth0";
  nif.addresses.push_back({address, 24});
  nif.bits_per_s = bits;
  nif.rate_source = "test";
  h.interfaces.push_back(nif);
  return h;
}

TEST(LineRate, PairsOnOneHostHaveNoneAndAcrossHostsTheSlowerEnd) {
  const std::uint32_t net = 0x0ad50000;  // 10.213.0.0/24
  const std::vector<HostNet> nets = {host("a", "ns0", net + 1, 1e9), host("a", "ns0", net + 1, 1e9),
                                     host("a", "ns1", net + 2, 0.5e9), host("b", "ns0", net + 3, 25e9)};
  EXPECT_FALSE(pair_line_rate(nets, 0, 1));            // one host, one namespace: memory
  EXPECT_DOUBLE_EQ(pair_line_rate(nets, 0, 2)->bits_per_s, 0.5e9);  // the slower end
  EXPECT_DOUBLE_EQ(pair_line_rate(nets, 0, 3)->bits_per_s, 1e9);
  EXPECT_FALSE(pair_line_rate(nets, 0, 7));
  // Another subnet and no InfiniBand: no path seen, no rate.
  const std::vector<HostNet> apart = {host("a", "n", net + 1, 1e9), host("b", "n", 0x0b000001, 1e9)};
  EXPECT_FALSE(pair_line_rate(apart, 0, 1));
  // Over verbs: both ends have an active port.
  std::vector<HostNet> ib = apart;
  ib[0].ib_ports.push_back({"mlx5_0", 1, 400e9, "400 Gb/sec (4X NDR)"});
  ib[1].ib_ports.push_back({"mlx5_0", 1, 200e9, "200 Gb/sec (4X HDR)"});
  EXPECT_DOUBLE_EQ(pair_line_rate(ib, 0, 1)->bits_per_s, 200e9);
  // The ring: pairs 0-1, 1-2, 2-3, 3-0.
  const RingLineRate ring = ring_line_rate(nets);
  EXPECT_EQ(ring.pairs, 4);
  EXPECT_EQ(ring.pairs_in_memory, 1);
  ASSERT_TRUE(ring.rate);
  EXPECT_DOUBLE_EQ(ring.rate->bits_per_s, 0.5e9);
  EXPECT_EQ(ring_line_rate({nets[0], nets[1]}).pairs, 1);
  EXPECT_EQ(ring_line_rate({nets[0], nets[1]}).pairs_in_memory, 1);
}

TEST(LineRate, AHostsViewTravelsAsText) {
  HostNet h = host("a", "net:[1]", 0x0ad50001, 1e9);
  h.ib_ports.push_back({"mlx5_0", 1, 400e9, "400 Gb/sec (4X NDR)"});
  const HostNet back = host_net_from_text(to_text(h));
  EXPECT_EQ(back.host, "a");
  EXPECT_EQ(back.netns, "net:[1]");
  ASSERT_EQ(back.interfaces.size(), 1u);
  EXPECT_EQ(back.interfaces[0].addresses, h.interfaces[0].addresses);
  EXPECT_DOUBLE_EQ(back.interfaces[0].bits_per_s, 1e9);
  ASSERT_EQ(back.ib_ports.size(), 1u);
  EXPECT_DOUBLE_EQ(back.ib_ports[0].bits_per_s, 400e9);
}

TEST(HardwareReport, TheWarningNamesTheCauseAndTheFixAndTheShareItsLimit) {
  HardwareLimits h;
  h.cpu = avx512_cpu(false);
  h.blas = openblas("Prescott");
  h.core = peak_of(8, 16, 32, 64);
  const auto warnings = hardware_warnings(h, {DataType::Float, DataType::Double});
  ASSERT_EQ(warnings.size(), 2u);  // float and double say it each in their words
  EXPECT_NE(warnings[0].find("OPENBLAS_CORETYPE=SkylakeX"), std::string::npos);
  EXPECT_NE(hardware_header_text(h, {DataType::Float}).find("# WARNING (float)"), std::string::npos);
  EXPECT_EQ(blas_coretype_text(h, {DataType::Float}).substr(0, 9), "SkylakeX\n");
  EXPECT_EQ(compute_share_text(96e9, h.compute_limit(DataType::Float)),
            " = 0.50x this core's AVX-512 FMA peak (192.0 GFLOP/s: 64.0 FLOP/cycle x 3.00 GHz x 1 thread)");
  h.blas = openblas("SkylakeX");
  EXPECT_TRUE(hardware_warnings(h, {DataType::Float}).empty());
  EXPECT_EQ(blas_coretype_text(h, {DataType::Float}).substr(0, 2), "-\n");
  // A GPU held below its clock.
  HardwareLimits g;
  g.gpu = GpuDevice{};
  g.gpu->max_clock_hz = 2e9;
  g.gpu->clock_hz = 1e9;
  g.gpu->clock_limits = "hardware thermal slowdown";
  const auto gw = hardware_warnings(g, {DataType::BFloat16});
  ASSERT_EQ(gw.size(), 1u);
  EXPECT_NE(gw[0].find("0.50x its maximum"), std::string::npos);
  EXPECT_NE(gw[0].find("thermal"), std::string::npos);
}

TEST(HardwareReport, LineRateShares) {
  RingLineRate r;
  r.pairs = 2;
  r.rate = LineRate{1e9, "eth0", "SHARDROOF_LINE_RATE=1gbit"};
  EXPECT_EQ(ring_line_rate_text(r, 0.1175e9),
            "line rate 1 Gbit/s = 0.125 GB/s (eth0: SHARDROOF_LINE_RATE=1gbit): W = 0.94x of it");
  RingLineRate mem;
  mem.pairs = mem.pairs_in_memory = 1;
  EXPECT_EQ(ring_line_rate_text(mem, 1e9), "no line rate: the ranks share one host (their link is memory)");
  EXPECT_EQ(pair_line_rate_text(r.rate, 0.0625e9), "0.50x of 1 Gbit/s (eth0)");
  EXPECT_EQ(pair_line_rate_text(std::nullopt, 1e9), "");
}

}  // namespace
}  // namespace shardroof::hw
