// hardware/ on CPUs the developers do not have: recorded cpuid decoded to
// the vector levels, the BLAS verdicts and the kernel shardroof would run,
// and the clock's two physical checks (the chains agree, every loop's FLOP
// per cycle is a core's), each on synthetic rates of the CPU's known units.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "cpu_fixtures.h"
#include "hardware/blas_choice.h"
#include "hardware/blas_kernel.h"
#include "hardware/core_peak.h"
#include "hardware/limits.h"

namespace shardroof::hw {
namespace {

using coll::DataType;
using fixtures::CpuFixture;
using fixtures::kCpus;

const CpuFixture& cpu_named(std::string_view part) {
  for (const auto& c : kCpus)
    if (c.name.find(part) != std::string_view::npos) return c;
  throw std::runtime_error("no fixture " + std::string(part));
}

// What the fixture's cores reach, as core_peak.h would measure it on one
// rank: every loop the CPU has at its known FLOP per cycle (double half of
// float's, the AVX512_BF16 dot twice float's AVX-512), the chains at the clock.
CorePeak measured_on(const CpuFixture& f, double add_chain_hz, double imul_chain_hz) {
  const CpuIsa cpu = decode_cpuid(f.cpuid);
  CorePeak p;
  p.add_chain_hz = add_chain_hz;
  p.imul_chain_hz = imul_chain_hz;
  for (const CoreLoop& l : loops_for(cpu, {DataType::Float, DataType::Double, DataType::BFloat16})) {
    const double fpc = l.type == DataType::BFloat16 ? 2 * f.float_flop_per_cycle[3]
                                                    : f.float_flop_per_cycle[static_cast<std::size_t>(l.isa)] /
                                                          (l.type == DataType::Double ? 2 : 1);
    p.rates.push_back({l, fpc * f.clock_hz, f.clock_hz});
  }
  judge_clock(p);
  return p;
}

BlasInfo library_kernel(BlasFamily family, const std::string& kernel) {
  BlasInfo b;
  b.family = family;
  b.library = family == BlasFamily::Blis ? "BLIS" : "OpenBLAS";
  b.kernel = kernel;
  b.kernel_isa = kernel_isa(family, kernel);
  b.kernel_variable = std::string(kernel_variable(family));
  return b;
}

TEST(CpuFixtures, DecodeToTheLevelsEachCpuHas) {
  const CpuIsa zen4 = decode_cpuid(cpu_named("Zen 4").cpuid);
  EXPECT_TRUE(zen4.avx512_skylakex());
  EXPECT_TRUE(zen4.avx512_bf16);
  EXPECT_FALSE(zen4.amx_tile);
  EXPECT_EQ(zen4.widest(), VectorIsa::Avx512);
  for (const auto* name : {"Sapphire", "Emerald"}) {
    const CpuIsa c = decode_cpuid(cpu_named(name).cpuid);
    EXPECT_TRUE(c.avx512_skylakex()) << name;
    EXPECT_TRUE(c.avx512_bf16) << name;
    EXPECT_TRUE(c.avx512_fp16) << name;
    EXPECT_TRUE(c.amx_tile && c.amx_bf16 && c.amx_int8) << name;
  }
  const CpuIsa icx = decode_cpuid(cpu_named("Ice Lake").cpuid);
  EXPECT_TRUE(icx.avx512_skylakex());
  EXPECT_TRUE(icx.avx512_vnni);
  EXPECT_FALSE(icx.avx512_bf16);
  const CpuIsa skx = decode_cpuid(cpu_named("Skylake").cpuid);
  EXPECT_TRUE(skx.avx512_skylakex());
  EXPECT_FALSE(skx.avx512_vnni);
  const CpuIsa hsw = decode_cpuid(cpu_named("Haswell").cpuid);
  EXPECT_TRUE(hsw.avx2 && hsw.fma);
  EXPECT_FALSE(hsw.avx512f);
  EXPECT_EQ(hsw.widest(), VectorIsa::Fma256);
}

// An OS that does not save the wide registers leaves the levels unusable.
TEST(CpuFixtures, LevelsNeedTheOsToSaveTheirRegisters) {
  CpuidDump d = cpu_named("Sapphire").cpuid;
  d.xcr0 = 0x7;  // x87, SSE, AVX: no AVX-512 or tile state
  const CpuIsa c = decode_cpuid(d);
  EXPECT_TRUE(c.avx2);
  EXPECT_FALSE(c.avx512f);
  EXPECT_FALSE(c.amx_tile);
  d.leaf1_ecx &= ~(1u << 27);  // no OSXSAVE: no AVX at all
  EXPECT_FALSE(decode_cpuid(d).avx);
}

// On every fixture, the clock of its cores passes both checks, and each
// loop's FLOP per cycle is the physical one.
TEST(ClockChecks, EveryFixtureCpusLoopsArePhysicalAtItsClock) {
  for (const auto& f : kCpus) {
    const CorePeak p = measured_on(f, f.clock_hz, f.clock_hz * 1.01);
    ASSERT_TRUE(p.clock_known()) << f.name << ": " << p.clock_unknown;
    EXPECT_DOUBLE_EQ(p.clock_hz, f.clock_hz);
    const LoopRate* best = p.fastest(DataType::Float);
    ASSERT_TRUE(best);
    EXPECT_NEAR(*p.flop_per_cycle(*best), f.float_flop_per_cycle[3] > 0 ? f.float_flop_per_cycle[3] : 32, 1e-9)
        << f.name;
  }
}

// Golden Cove and later run `add reg, imm` at rename: a chain of them read
// 9-17 GHz on a 2.5 GHz Xeon. A register add reads the clock; a multiply
// chain confirms it. Where a chain is wrong they disagree, and the clock
// is unknown: no figure per cycle, the reason said.
TEST(ClockChecks, ChainsThatDisagreeLeaveTheClockUnknown) {
  const auto& emr = cpu_named("Emerald");
  const CorePeak renamer = measured_on(emr, 11.7e9, 2.7e9);
  EXPECT_FALSE(renamer.clock_known());
  EXPECT_NE(renamer.clock_unknown.find("11.70 GHz"), std::string::npos) << renamer.clock_unknown;
  EXPECT_NE(renamer.clock_unknown.find("2.70 GHz"), std::string::npos);
  for (const auto& r : renamer.rates) EXPECT_FALSE(renamer.flop_per_cycle(r));
  // A core whose multiply takes 4 cycles reads 3/4 of the clock: unknown too.
  EXPECT_FALSE(measured_on(emr, emr.clock_hz, emr.clock_hz * 0.75).clock_known());
  // Within 5%: agreed.
  EXPECT_TRUE(measured_on(emr, emr.clock_hz, emr.clock_hz * 0.96).clock_known());
  // No core runs at 9 GHz, even where both chains said so.
  EXPECT_FALSE(measured_on(emr, 9e9, 9e9).clock_known());
}

// Both chains agree on a wrong clock only if both are wrong alike; the
// loops catch it: a 512-bit FMA loop reaches 32 or 64 FLOP per cycle and
// nothing between, so a clock 1.5x too high reads 42.7, which no core has.
TEST(ClockChecks, ALoopOffEveryPhysicalValueLeavesTheClockUnknown) {
  const auto& emr = cpu_named("Emerald");
  CorePeak p = measured_on(emr, emr.clock_hz, emr.clock_hz);
  ASSERT_TRUE(p.clock_known());
  const double wrong = 1.5 * emr.clock_hz;
  p.add_chain_hz = p.imul_chain_hz = wrong;
  for (auto& r : p.rates) r.clock_hz = wrong;
  judge_clock(p);
  EXPECT_FALSE(p.clock_known());
  EXPECT_NE(p.clock_unknown.find("not within 10% of a physical value"), std::string::npos) << p.clock_unknown;
}

// Skylake-SP lowers its clock under AVX-512 (a licence level): the loop's
// FLOP per cycle at the chains' clock would read 48 of 64 and fail, so each
// loop is judged at the clock measured right after it.
TEST(ClockChecks, AWideLoopIsJudgedAtTheClockUnderIt) {
  const auto& skx = cpu_named("Skylake");
  CorePeak p = measured_on(skx, skx.clock_hz, skx.clock_hz);
  const double licence = 0.75;
  for (auto& r : p.rates)
    if (r.loop.isa == VectorIsa::Avx512) {
      r.flops_per_s *= licence;
      r.clock_hz *= licence;
    }
  judge_clock(p);
  ASSERT_TRUE(p.clock_known()) << p.clock_unknown;
  EXPECT_NEAR(*p.flop_per_cycle(*p.rate({VectorIsa::Avx512, DataType::Float})), 64, 1e-9);
  for (auto& r : p.rates) r.clock_hz = 0;  // without the clock under the loop
  judge_clock(p);
  EXPECT_FALSE(p.clock_known());
}

// Two ranks on one core's units, measured at once: each loop reads half of
// the core, which the check allows where the sharing was measured (and
// only there); the rank's limit is what it measured with the other rank
// running, not that halved again.
TEST(ClockChecks, SharingIsAllowedForOnceAndNeverCountedTwiceInTheLimit) {
  const auto& zen4 = cpu_named("Zen 4");
  CorePeak p = measured_on(zen4, zen4.clock_hz, zen4.clock_hz);
  for (auto& r : p.rates) r.flops_per_s /= 2;
  judge_clock(p);
  EXPECT_FALSE(p.clock_known()) << "half a core with no sharing measured is not physical";
  const LoopRate* best = p.fastest(DataType::Float);
  p.sustained.push_back({best->loop, best->flops_per_s, 2 * best->flops_per_s});
  p.sustained_ranks = 2;
  judge_clock(p);
  ASSERT_TRUE(p.clock_known()) << p.clock_unknown;
  EXPECT_NEAR(*p.flop_per_cycle(*p.fastest(DataType::Float)), 16, 1e-9);
  const auto limit = cpu_compute_limit(p, DataType::Float, 1);
  ASSERT_TRUE(limit);
  EXPECT_DOUBLE_EQ(limit->flops_per_s, 16 * zen4.clock_hz);
  EXPECT_EQ(limit->name, "a rank's share of the AVX-512 FMA peak");
  EXPECT_NE(limit->formula.find("16.0 FLOP/cycle"), std::string::npos) << limit->formula;
  EXPECT_NE(limit->formula.find("0.50x of one rank alone"), std::string::npos) << limit->formula;
}

// A busy machine can read as ranks sharing cores (together slower than one
// alone) while each loop still ran at a whole core: that is physical too.
TEST(ClockChecks, ARankWithAWholeCoreStaysPhysicalWhereSharingWasMisread) {
  const auto& emr = cpu_named("Emerald");
  CorePeak p = measured_on(emr, emr.clock_hz, emr.clock_hz);
  const LoopRate* best = p.fastest(DataType::Float);
  p.sustained.push_back({best->loop, 0.72 * best->flops_per_s, best->flops_per_s});
  judge_clock(p);
  ASSERT_TRUE(p.clock_known()) << p.clock_unknown;
  EXPECT_NEAR(*p.flop_per_cycle(*p.fastest(DataType::Float)), 64, 1e-9);
}

TEST(ClockChecks, AnUnknownClockLeavesLimitsInFlopsPerSecond) {
  const auto& hsw = cpu_named("Haswell");
  const CorePeak p = measured_on(hsw, 11e9, 3.4e9);
  ASSERT_FALSE(p.clock_known());
  const auto limit = cpu_compute_limit(p, DataType::Float, 1);
  ASSERT_TRUE(limit);
  EXPECT_DOUBLE_EQ(limit->flops_per_s, 32 * 3.4e9);
  EXPECT_EQ(limit->formula.find("FLOP/cycle"), std::string::npos) << limit->formula;
  EXPECT_NE(limit->formula.find("clock unknown"), std::string::npos);
  EXPECT_NE(limit->formula.find("108.8 GFLOP/s per rank"), std::string::npos) << limit->formula;
  EXPECT_FALSE(reduce_bound_s_per_elem(p, decode_cpuid(hsw.cpuid), 4));
}

// A loaded machine can read as ranks sharing a core (the ranks together
// slower than one alone). Where the clock is unknown nothing checks a rate
// of a core alone, so none is printed: only what was measured.
TEST(ClockChecks, AnUnknownClockPrintsNoRateOfACoreAlone) {
  const auto& emr = cpu_named("Emerald");
  CorePeak p = measured_on(emr, 11e9, emr.clock_hz);
  const LoopRate* best = p.fastest(DataType::Float);
  p.sustained.push_back({best->loop, best->flops_per_s, best->flops_per_s / 0.7});
  const auto limit = cpu_compute_limit(p, DataType::Float, 1);
  ASSERT_TRUE(limit);
  EXPECT_DOUBLE_EQ(limit->flops_per_s, best->flops_per_s);
  EXPECT_EQ(limit->formula.find(fmt::format("{:.1f}", best->flops_per_s / 0.7 / 1e9)), std::string::npos)
      << limit->formula;
  EXPECT_NE(limit->formula.find("0.70x of one rank alone"), std::string::npos) << limit->formula;
}

TEST(PhysicalFlopPerCycle, LanesTimesFlopsPerLaneTimesUnits) {
  EXPECT_EQ(physical_flop_per_cycle({VectorIsa::Avx512, DataType::Float}), (std::vector<double>{32, 64}));
  EXPECT_EQ(physical_flop_per_cycle({VectorIsa::Avx512, DataType::Double}), (std::vector<double>{16, 32}));
  EXPECT_EQ(physical_flop_per_cycle({VectorIsa::Fma256, DataType::Float}), (std::vector<double>{16, 32}));
  EXPECT_EQ(physical_flop_per_cycle({VectorIsa::Avx512, DataType::BFloat16}), (std::vector<double>{32, 64, 128}));
  EXPECT_TRUE(judged_per_cycle({VectorIsa::Avx512, DataType::Float}));
  EXPECT_TRUE(judged_per_cycle({VectorIsa::Fma256, DataType::Double}));
  EXPECT_TRUE(judged_per_cycle({VectorIsa::Avx512, DataType::BFloat16}));
  EXPECT_FALSE(judged_per_cycle({VectorIsa::Avx, DataType::Float}));
  EXPECT_EQ(physical_flop_per_cycle({VectorIsa::Sse, DataType::Float}), (std::vector<double>{4, 8, 12, 16}));
  EXPECT_EQ(nearest_physical({VectorIsa::Avx512, DataType::Float}, 50), 64);
  EXPECT_EQ(nearest_physical({VectorIsa::Avx512, DataType::Float}, 14.9), 32);
  EXPECT_EQ(nearest_physical({VectorIsa::Avx512, DataType::Float}, 14.9, true), 16);
  EXPECT_EQ(physical_flop_per_cycle({VectorIsa::Fma256, DataType::Float}, true), (std::vector<double>{8, 16, 32}));
  EXPECT_EQ(physical_flop_per_cycle({VectorIsa::Avx, DataType::Float}, true).size(), 4u);
}

// The kernel each library runs on each CPU, judged against the CPU's
// units, and the kernel shardroof would run instead.
TEST(KernelOnFixtures, OpenBlasFallbackIsBelowEveryVectorCpuWithItsFix) {
  for (const auto& f : kCpus) {
    const CpuIsa cpu = decode_cpuid(f.cpuid);
    const CorePeak p = measured_on(f, f.clock_hz, f.clock_hz);
    const KernelVerdict v = judge_blas_kernel(library_kernel(BlasFamily::OpenBlas, "Prescott"), cpu, p, DataType::Float);
    EXPECT_TRUE(v.below_cpu.value_or(false)) << f.name;
    EXPECT_EQ(v.fix_kernel, cpu.avx512f ? "SkylakeX" : "Haswell") << f.name;
  }
}

TEST(KernelOnFixtures, BlisHaswellIsBelowTwoUnitXeonsButNotZen4) {
  for (const auto& f : kCpus) {
    const CpuIsa cpu = decode_cpuid(f.cpuid);
    const CorePeak p = measured_on(f, f.clock_hz, f.clock_hz);
    const KernelVerdict v = judge_blas_kernel(library_kernel(BlasFamily::Blis, "haswell"), cpu, p, DataType::Float);
    const bool two_512_units = f.float_flop_per_cycle[3] == 64;
    EXPECT_EQ(v.below_cpu.value_or(!two_512_units), two_512_units) << f.name;
    EXPECT_EQ(v.fix_kernel, two_512_units ? "skx" : "") << f.name;
  }
}

TEST(KernelChoice, AutoRestartsOnlyWhereTheLibrarysKernelIsBelow) {
  const auto& spr = cpu_named("Sapphire");
  const CpuIsa cpu = decode_cpuid(spr.cpuid);
  int measured = 0;
  const auto measure = [&] {
    ++measured;
    return measured_on(spr, spr.clock_hz, spr.clock_hz);
  };
  const BlasKernelRequest automatic{BlasKernelRequest::Mode::Auto, ""};
  const KernelDecision d = decide_blas_kernel(automatic, library_kernel(BlasFamily::OpenBlas, "Prescott"), cpu, measure);
  EXPECT_TRUE(d.restart);
  EXPECT_EQ(d.variable, "OPENBLAS_CORETYPE");
  EXPECT_EQ(d.value, "SkylakeX");
  EXPECT_EQ(d.by, KernelSetBy::Shardroof);
  EXPECT_EQ(measured, 1);
  // The CPU's own widest level: nothing to measure, nothing to change.
  EXPECT_FALSE(decide_blas_kernel(automatic, library_kernel(BlasFamily::OpenBlas, "SkylakeX"), cpu, measure).restart);
  EXPECT_EQ(measured, 1);
  // A user's own variable is kept, even where below (the verdict warns).
  BlasInfo users = library_kernel(BlasFamily::OpenBlas, "Prescott");
  users.kernel_env = "Prescott";
  EXPECT_FALSE(decide_blas_kernel(automatic, users, cpu, measure).restart);
  // keep: never.
  EXPECT_FALSE(decide_blas_kernel({BlasKernelRequest::Mode::Keep, ""}, library_kernel(BlasFamily::OpenBlas, "Prescott"),
                                  cpu, measure)
                   .restart);
  // BLIS: its own variable, set to the number of its arch_t where the
  // library says so (0.9.0 reads it with atoi: a name would read as 0).
  BlasInfo blis = library_kernel(BlasFamily::Blis, "haswell");
  EXPECT_EQ(decide_blas_kernel(automatic, blis, cpu, measure).value, "skx");
  blis.kernel_settings = {{"skx", "0"}, {"haswell", "3"}, {"penryn", "5"}};
  const KernelDecision b = decide_blas_kernel(automatic, blis, cpu, measure);
  EXPECT_TRUE(b.restart);
  EXPECT_EQ(b.variable, "BLIS_ARCH_TYPE");
  EXPECT_EQ(b.value, "0");
  EXPECT_EQ(kernel_setting(blis, "PENRYN"), "5");
  EXPECT_EQ(kernel_setting(blis, "zen3"), "zen3");
  const KernelDecision named = decide_blas_kernel({BlasKernelRequest::Mode::Name, "penryn"}, blis, cpu, measure);
  EXPECT_TRUE(named.restart);
  EXPECT_EQ(named.value, "5");
  blis.kernel = "penryn";  // already running it: nothing to do
  EXPECT_FALSE(decide_blas_kernel({BlasKernelRequest::Mode::Name, "penryn"}, blis, cpu, measure).restart);
  // Zen 4 splits 512-bit instructions: BLIS's zen3 (AVX2) is not below.
  const auto& zen4 = cpu_named("Zen 4");
  EXPECT_FALSE(decide_blas_kernel(automatic, library_kernel(BlasFamily::Blis, "zen3"), decode_cpuid(zen4.cpuid),
                                  [&] { return measured_on(zen4, zen4.clock_hz, zen4.clock_hz); })
                   .restart);
  // A library with no kernel variable is left alone.
  BlasInfo other;
  EXPECT_FALSE(decide_blas_kernel(automatic, other, cpu, measure).restart);
}

TEST(KernelChoice, ANamedKernelIsSetUnlessAlreadySo) {
  const CpuIsa cpu = decode_cpuid(cpu_named("Haswell").cpuid);
  const auto never = [] {
    ADD_FAILURE() << "a named kernel needs no measurement";
    return CorePeak{};
  };
  const BlasKernelRequest prescott{BlasKernelRequest::Mode::Name, "Prescott"};
  const KernelDecision d = decide_blas_kernel(prescott, library_kernel(BlasFamily::OpenBlas, "Haswell"), cpu, never);
  EXPECT_TRUE(d.restart);
  EXPECT_EQ(d.value, "Prescott");
  EXPECT_EQ(d.by, KernelSetBy::Flag);
  BlasInfo already = library_kernel(BlasFamily::OpenBlas, "Prescott");
  already.kernel_env = "prescott";
  EXPECT_FALSE(decide_blas_kernel(prescott, already, cpu, never).restart);
}

TEST(KernelChoice, FlagValuesMarkersAndTheCommandLine) {
  EXPECT_EQ(parse_blas_kernel("auto", BlasFamily::OpenBlas)->mode, BlasKernelRequest::Mode::Auto);
  EXPECT_EQ(parse_blas_kernel("KEEP", BlasFamily::Blis)->mode, BlasKernelRequest::Mode::Keep);
  EXPECT_EQ(parse_blas_kernel("SkylakeX", BlasFamily::OpenBlas)->name, "SkylakeX");
  EXPECT_TRUE(parse_blas_kernel("skx", BlasFamily::Blis));
  EXPECT_FALSE(parse_blas_kernel("skx", BlasFamily::OpenBlas));
  EXPECT_FALSE(parse_blas_kernel("Prescott", BlasFamily::Other));
  EXPECT_FALSE(parse_blas_kernel("", BlasFamily::OpenBlas));

  const KernelMarker m = parse_marker(marker_text(KernelSetBy::Shardroof, "Prescott"));
  EXPECT_TRUE(m.present);
  EXPECT_EQ(m.by, KernelSetBy::Shardroof);
  EXPECT_EQ(m.library_kernel, "Prescott");
  EXPECT_EQ(parse_marker(marker_text(KernelSetBy::Flag, "haswell")).by, KernelSetBy::Flag);
  EXPECT_FALSE(parse_marker("user:Prescott").present);
  EXPECT_FALSE(parse_marker("garbage").present);

  std::string a0 = "shardroof", a1 = "sweep", a2 = "--blas-kernel", a3 = "Prescott", a4 = "--blas-kernel=keep";
  char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), nullptr};
  EXPECT_EQ(blas_kernel_argument(4, argv), "Prescott");
  char* last[] = {a0.data(), a2.data(), a3.data(), a4.data(), nullptr};
  EXPECT_EQ(blas_kernel_argument(4, last), "keep");
  char* none[] = {a0.data(), a1.data(), nullptr};
  EXPECT_EQ(blas_kernel_argument(2, none), "");
}

TEST(BlasTables, BlisConfigurationsAndTheirFixes) {
  EXPECT_EQ(blis_kernel_isa("skx"), VectorIsa::Avx512);
  EXPECT_EQ(blis_kernel_isa("HASWELL"), VectorIsa::Fma256);
  EXPECT_EQ(blis_kernel_isa("zen3"), VectorIsa::Fma256);
  EXPECT_EQ(blis_kernel_isa("generic"), VectorIsa::Sse);
  EXPECT_EQ(blis_kernel_isa("firestorm"), std::nullopt);
  EXPECT_EQ(blis_arch_for(VectorIsa::Avx512, decode_cpuid(cpu_named("Ice Lake").cpuid)), "skx");
  EXPECT_EQ(blis_arch_for(VectorIsa::Avx512, decode_cpuid(cpu_named("Haswell").cpuid)), "haswell");
  EXPECT_EQ(kernel_variable(BlasFamily::Blis), "BLIS_ARCH_TYPE");
  EXPECT_EQ(kernel_variable(BlasFamily::Other), "");
}

}  // namespace
}  // namespace shardroof::hw
