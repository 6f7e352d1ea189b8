// Recorded cpuid of CPUs the developers do not have: leaves 0, 1 and 7
// (subleaves 0 and 1) of logical CPU 0, from AIDA64 dumps published in
// the InstLatx64 collection (file names below). The dumps do not record
// XCR0; each fixture takes the states leaf 0xD subleaf 0 says the CPU
// supports (EDX:EAX), as an OS that enables them all sets it (Linux does).
// Beside each, what its cores are known to do per cycle: FMA units of the
// widest level (Intel's optimisation manual, AMD's software optimisation
// guides), which the FLOP-per-cycle check and the verdicts are tested on.
#pragma once

#include <array>
#include <string_view>

#include "hardware/cpu_isa.h"

namespace shardroof::hw::fixtures {

struct CpuFixture {
  std::string_view name;
  std::string_view source;  // the dump's file in the collection
  CpuidDump cpuid;
  // float FLOP per cycle of one core (a core alone) per level, for the
  // loops of core_loops.h: SSE, AVX (multiply and add), AVX2+FMA, AVX-512
  // (0: the CPU lacks it).
  std::array<double, 4> float_flop_per_cycle;
  double clock_hz;  // a clock the core runs at under load
};

// {max_leaf, leaf1 ecx, edx, leaf7 eax, ebx, ecx, edx, leaf7.1 eax, xcr0}
inline constexpr std::array<CpuFixture, 6> kCpus = {{
    // Zen 4: two 256-bit FMA pipes and two adders; a 512-bit FMA is two
    // halves, so AVX-512 ties AVX2+FMA at 32.
    {"AMD EPYC 9654 (Zen 4)", "AuthenticAMD/AuthenticAMD0A10F11_K19_Genoa_01_CPUID.txt",
     {0x10, 0x7EFA320B, 0x178BFBFF, 0x1, 0xF1BF97A9, 0x00415FCE, 0x10000010, 0x20, 0x2E7},
     {16, 32, 32, 32}, 3.55e9},
    // Golden Cove: two 512-bit FMA units on ports 0+1 and 5; AMX tiles.
    {"Intel Xeon w9-3475X (Sapphire Rapids)", "GenuineIntel/GenuineIntel00806F8_SapphireRapids_06_CPUID.txt",
     {0x20, 0x7FFEFBFF, 0xBFEBFBFF, 0x2, 0xF3BFBFFB, 0xBB417FEE, 0xFFDD4430, 0x1C30, 0x602E7},
     {12, 24, 32, 64}, 2.2e9},
    // Raptor Cove: as Sapphire Rapids.
    {"Intel Xeon Platinum 8570 (Emerald Rapids)", "GenuineIntel/GenuineIntel00C06F2_EmeraldRapids_03_CPUID.txt",
     {0x20, 0x7FFEFBFF, 0xBFEBFBFF, 0x2, 0xF3BFBFFF, 0xFB417FEE, 0xFFDD4432, 0x1C30, 0x602E7},
     {12, 24, 32, 64}, 2.5e9},
    // Sunny Cove server: two 512-bit FMA units, no AVX512_BF16.
    {"Intel Xeon Platinum 8351N (Ice Lake-SP)", "GenuineIntel/GenuineIntel00606A6_ICX_CPUID3.txt",
     {0x1B, 0x7FFEFBFF, 0xBFEBFBFF, 0x0, 0xF3BFBFFF, 0x40417F4E, 0xBC040412, 0x0, 0x2E7},
     {8, 16, 32, 64}, 2.4e9},
    // Skylake-SP Platinum: two 512-bit FMA units.
    {"Intel Xeon Platinum 8180 (Skylake-SP)", "GenuineIntel/GenuineIntel0050654_SkylakeXeon_CPUID6.txt",
     {0x16, 0x7FFEFBFF, 0xBFEBFBFF, 0x0, 0xD39FFFFB, 0x00000008, 0x0, 0x0, 0x2FF},
     {8, 16, 32, 64}, 2.3e9},
    // Haswell: two 256-bit FMA units, no AVX-512.
    {"Intel Core i7-4770 (Haswell)", "GenuineIntel/GenuineIntel00306C3_Haswell_CPUID.txt",
     {0xD, 0x7FFAFBFF, 0xBFEBFBFF, 0x0, 0x000027AB, 0x0, 0x0, 0x0, 0x7},
     {8, 16, 32, 0}, 3.4e9},
}};

}  // namespace shardroof::hw::fixtures
