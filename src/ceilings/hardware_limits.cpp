#include "ceilings/hardware_limits.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

#include "timing/timing.h"
#include "util/mpi_session.h"
#include "util/node.h"

namespace shardroof {
namespace {

// The sustained loops: iterations of about 20 ms, 10 of them.
constexpr double kSustainedS = 0.02;
constexpr int kSustainedIterations = 10;
// The core's loops: the fastest of 30 repetitions of about 1 ms.
constexpr int kRepetitions = 30;
constexpr double kRepetitionS = 1e-3;


// Every rank's reading, the slowest rank's kept (min over ranks): a step
// is as fast as its slowest rank. Ranks whose CPUs lack a loop read 0
// there, and the loop is left out.
hw::CorePeak slowest_rank(const hw::CorePeak& mine, MPI_Comm comm) {
  std::vector<double> values = {mine.add_chain_hz, mine.imul_chain_hz, mine.amx_bf16_flops_per_s.value_or(0),
                                mine.amx_clock_hz};
  for (const auto& r : mine.rates) {
    values.push_back(r.flops_per_s);
    values.push_back(r.clock_hz);
  }
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MIN, comm);
  hw::CorePeak out;
  out.repetitions = mine.repetitions;
  out.repetition_s = mine.repetition_s;
  out.add_chain_hz = values[0];
  out.imul_chain_hz = values[1];
  if (values[2] > 0) {
    out.amx_bf16_flops_per_s = values[2];
    out.amx_clock_hz = values[3];
  } else if (mine.amx_bf16_flops_per_s) {
    out.amx_unavailable = "a rank was not granted the tile state";
  } else {
    out.amx_unavailable = mine.amx_unavailable;
  }
  for (std::size_t i = 0; i < mine.rates.size(); ++i)
    if (values[4 + 2 * i] > 0) out.rates.push_back({mine.rates[i].loop, values[4 + 2 * i], values[5 + 2 * i]});
  return out;
}

// Judges the clock, measuring the loops again where it failed (up to
// kClockMeasurements in all). Every rank holds the same reduced record, so
// all agree to measure again; the sharing measured once stays.
void judge_measuring_again(hw::CorePeak& core, const std::function<hw::CorePeak()>& measure_loops) {
  hw::judge_clock(core);
  for (int m = 2; !core.clock_known() && m <= hw::kClockMeasurements; ++m) {
    hw::CorePeak again = measure_loops();
    again.sustained = core.sustained;
    again.sustained_ranks = core.sustained_ranks;
    again.sustained_iterations = core.sustained_iterations;
    again.sustained_s = core.sustained_s;
    again.measurements = m;
    hw::judge_clock(again);
    core = std::move(again);
  }
}

}  // namespace

std::optional<hw::ComputeLimit> HardwareLimits::compute_limit(coll::DataType type) const {
  if (gpu) return hw::gpu_compute_limit(*gpu, type, allow_tf32);
  return hw::cpu_compute_limit(core, type, threads);
}

std::optional<hw::KernelVerdict> HardwareLimits::blas_verdict(coll::DataType type) const {
  if (gpu || !core.measured()) return std::nullopt;
  return hw::judge_blas_kernel(blas, cpu, core, type);
}

HardwareLimits measure_hardware_limits(ComputeBackend& backend, MPI_Comm comm, const std::vector<coll::DataType>& types,
                                       int threads, bool allow_tf32) {
  HardwareLimits out;
  out.cpu_model = hw::cpu_model_name();
  out.cpu = hw::cpu_isa();
  out.blas = hw::query_blas();
  out.threads = threads;
  out.allow_tf32 = allow_tf32;
  if (const auto gpu = backend.gpu_device()) {
    // The clock is read after the timed GEMMs (read_gpu_clocks): an idle
    // GPU runs at a low clock by design.
    out.gpu = *gpu;
    out.gpu->clock_hz.reset();
    out.gpu->clock_limits.clear();
    return out;
  }
  // Only the loops of the datatypes asked for (bfloat16 also needs float's:
  // its GEMM multiplies in float).
  std::vector<coll::DataType> wanted = types;
  if (std::find(types.begin(), types.end(), coll::DataType::BFloat16) != types.end())
    wanted.push_back(coll::DataType::Float);
  // One loop at a time on every rank at once (a barrier before each slot,
  // so ranks whose CPUs lack a loop still meet the others at every one):
  // units two ranks share are measured shared.
  // The tile loop adds a barrier: every rank runs it, or none does (ranks
  // whose CPUs differ would otherwise wait at different barriers).
  int amx_everywhere = std::find(types.begin(), types.end(), coll::DataType::BFloat16) != types.end() &&
                       out.cpu.amx_bf16;
  MPI_Allreduce(MPI_IN_PLACE, &amx_everywhere, 1, MPI_INT, MPI_MIN, comm);
  const bool amx = amx_everywhere != 0;
  const auto measure_loops = [&] {
    return slowest_rank(hw::measure_core_peak(out.cpu, hw::loop_slots(wanted), kRepetitions, kRepetitionS,
                                              [comm] { MPI_Barrier(comm); }, amx),
                        comm);
  };
  out.core = measure_loops();
  out.core.sustained_iterations = kSustainedIterations;
  out.core.sustained_s = kSustainedS;
  // Whether the ranks of a node share their cores' units: the fastest loop
  // of each datatype asked for, longer, by the node's first rank alone,
  // then by every rank of the node at once (timed as every measurement: a
  // barrier, the slowest rank's time, the median). Every rank has the loop
  // (its rate above is the minimum over ranks).
  const NodeComm node(comm);
  int largest = node.size();
  MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_INT, MPI_MAX, comm);
  if (largest < 2) {
    judge_measuring_again(out.core, measure_loops);
    return out;
  }
  out.core.sustained_ranks = largest;
  HostClock clock;
  for (const auto t : {coll::DataType::Float, coll::DataType::Double, coll::DataType::BFloat16}) {
    if (std::find(wanted.begin(), wanted.end(), t) == wanted.end()) continue;
    const hw::LoopRate* best = out.core.fastest(t);
    if (!best || best->flops_per_s <= 0) continue;
    const hw::CoreLoop loop = best->loop;
    const double per_iteration = hw::flops_per_iteration(loop);
    const auto n = static_cast<std::uint64_t>(std::max(1.0, kSustainedS * best->flops_per_s / per_iteration));
    const double work = per_iteration * static_cast<double>(n);
    // Alone: each node's first rank; the others wait at the barrier.
    double alone = 0;
    MPI_Barrier(comm);
    if (node.rank() == 0) {
      std::vector<double> times;
      for (int i = 0; i <= kSustainedIterations; ++i) {
        clock.start();
        hw::run_core_loop(loop, n);
        const double took = clock.stop();
        if (i > 0) times.push_back(took);  // the first one warms up
      }
      alone = work / summarize(times).median;
    }
    MPI_Barrier(comm);
    const TimeStats together =
        measure(comm, {1, kSustainedIterations}, clock, [&](int) { hw::run_core_loop(loop, n); });
    // The lowest ratio over the nodes that have more than one rank.
    double ratio = node.size() > 1 && node.rank() == 0 && alone > 0 && together.median > 0
                       ? work / together.median / alone
                       : 2.0;
    MPI_Allreduce(MPI_IN_PLACE, &ratio, 1, MPI_DOUBLE, MPI_MIN, comm);
    double alone_min = node.rank() == 0 && node.size() > 1 ? alone : std::numeric_limits<double>::infinity();
    MPI_Allreduce(MPI_IN_PLACE, &alone_min, 1, MPI_DOUBLE, MPI_MIN, comm);
    if (ratio < 2.0 && std::isfinite(alone_min)) out.core.sustained.push_back({loop, alone_min * ratio, alone_min});
  }
  // The per-cycle checks allow for the sharing: judged once it is known.
  judge_measuring_again(out.core, measure_loops);
  return out;
}

void read_gpu_clocks(ComputeBackend& backend, MPI_Comm comm, HardwareLimits& limits) {
  if (!limits.gpu) return;
  const auto now = backend.gpu_device();
  struct {
    double clock;
    int rank;
  } mine{now && now->clock_hz ? *now->clock_hz : std::numeric_limits<double>::infinity(), 0};
  MPI_Comm_rank(comm, &mine.rank);
  MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm);
  if (std::isinf(mine.clock)) {
    limits.gpu->clock_hz.reset();
    return;
  }
  // The limits the slowest rank's driver named travel with its clock.
  const auto reasons = all_gather_strings(comm, now ? now->clock_limits : std::string());
  limits.gpu->clock_hz = mine.clock;
  limits.gpu->clock_limits = reasons[static_cast<std::size_t>(mine.rank)];
  limits.gpu_clock_rank = mine.rank;
}

std::vector<hw::HostNet> gather_host_nets(MPI_Comm comm) {
  const auto texts = all_gather_strings(comm, hw::to_text(hw::local_host_net(host_name())));
  std::vector<hw::HostNet> out;
  out.reserve(texts.size());
  for (const auto& t : texts) out.push_back(hw::host_net_from_text(t));
  return out;
}

}  // namespace shardroof
