#include "ceilings/ceilings.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "collectives/blocks.h"
#include "collectives/mpi_transport.h"
#include "collectives/check_pattern.h"
#include "util/node.h"

namespace shardroof {
namespace {

// Non-zero data whose sums stay exact in every type: a ceiling's kernels
// run at their speed on it (no zeros a library could skip, no subnormals).
// `which` tells two operands (or two ranks' contributions) apart.
void fill_operand(void* host, std::size_t count, int which, coll::DataType type) {
  coll::fill_pattern(host, count, 0, which, which + 1, type, coll::ReduceOp::Sum);
}

}  // namespace

double gemm_flops_per_s(std::size_t m, std::size_t n, std::size_t k, double seconds) {
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return seconds > 0 ? flops / seconds : 0;
}

double copy_bytes_per_s(std::size_t elements, double seconds) {
  return seconds > 0 ? 2.0 * static_cast<double>(elements) * sizeof(double) / seconds : 0;
}

double triad_bytes_per_s(std::size_t elements, double seconds) {
  return seconds > 0 ? 3.0 * static_cast<double>(elements) * sizeof(double) / seconds : 0;
}

double reduce_s_per_elem(std::size_t count, double seconds) {
  return count > 0 ? seconds / static_cast<double>(count) : 0;
}

GemmRate measure_gemm_rate(ComputeBackend& backend, MPI_Comm comm, std::size_t m, std::size_t n,
                           std::size_t k, coll::DataType type, const TimingPlan& timing) {
  auto& mem = backend.memory();
  const std::size_t es = coll::size_of(type);
  auto a = mem.allocate(m * k * es + 1), b = mem.allocate(k * n * es + 1), c = mem.allocate(m * n * es + 1);
  {
    std::vector<std::byte> host(std::max(m * k, k * n) * es + 1);
    fill_operand(host.data(), m * k, 0, type);
    mem.copy(a->data(), host.data(), m * k * es);
    fill_operand(host.data(), k * n, 1, type);
    mem.copy(b->data(), host.data(), k * n * es);
    mem.synchronize();
  }
  auto gemm = backend.prepare_gemm(m, n, k, a->data(), b->data(), c->data(), type);
  auto clock = backend.make_clock();
  GemmRate out{m, n, k, type, {}, 0};
  out.time = measure(comm, timing, *clock, [&](int) { gemm->run(); });
  out.flops_per_s = gemm_flops_per_s(m, n, k, out.time.median);
  return out;
}

GemmRate measure_call_rate(ComputeBackend& backend, MPI_Comm comm, coll::DataType type, const TimingPlan& timing) {
  auto& mem = backend.memory();
  const std::size_t es = coll::size_of(type);
  auto a = mem.allocate(es + 1), b = mem.allocate(es + 1), c = mem.allocate(es + 1);
  {
    std::vector<std::byte> host(es + 1);
    fill_operand(host.data(), 1, 0, type);
    mem.copy(a->data(), host.data(), es);
    fill_operand(host.data(), 1, 1, type);
    mem.copy(b->data(), host.data(), es);
    mem.synchronize();
  }
  auto gemm = backend.prepare_gemm(1, 1, 1, a->data(), b->data(), c->data(), type);
  HostClock clock;
  GemmRate out{1, 1, 1, type, {}, 0};
  out.time = measure(comm, timing, clock, [&](int) {
    gemm->run();
    backend.synchronize();
  });
  out.flops_per_s = gemm_flops_per_s(1, 1, 1, out.time.median);
  return out;
}

GemmShape grown_gemm_shape(GemmShape shape, double seconds, double min_seconds, std::size_t element_bytes,
                           std::size_t max_bytes) {
  constexpr double kAlign = 128;  // whole tiles of the tensor-core kernels
  const auto bytes = [element_bytes](const GemmShape& g) {
    const double m = static_cast<double>(g.m), n = static_cast<double>(g.n), k = static_cast<double>(g.k);
    return (m * k + k * n + m * n) * static_cast<double>(element_bytes);
  };
  const double volume = std::clamp(1.2 * min_seconds / std::max(seconds, 1e-9), 2.0, 64.0);
  const double f = std::cbrt(volume);
  const auto up = [&](std::size_t d) {
    return static_cast<std::size_t>(std::ceil(static_cast<double>(d) * f / kAlign) * kAlign);
  };
  GemmShape next{up(shape.m), up(shape.n), up(shape.k)};
  const double limit = static_cast<double>(max_bytes);
  if (bytes(next) > limit) {
    // The operands' bytes grow with the square of a common scale.
    const double cut = std::sqrt(limit / bytes(next));
    const auto down = [&](std::size_t d, std::size_t least) {
      return std::max(least, static_cast<std::size_t>(std::floor(static_cast<double>(d) * cut / kAlign) * kAlign));
    };
    next = {down(next.m, shape.m), down(next.n, shape.n), down(next.k, shape.k)};
  }
  if (bytes(next) > limit || next == shape) return shape;
  return next;
}

GemmRate measure_peak_gemm_rate(ComputeBackend& backend, MPI_Comm comm, std::size_t m, std::size_t n,
                                std::size_t k, coll::DataType type, const TimingPlan& timing, double min_seconds) {
  // Room for the operands: a quarter of the free memory, shared by the
  // ranks of a node; the least over all ranks, so every rank grows alike.
  const int node_ranks = NodeComm(comm).size();
  const unsigned long long mine = backend.free_memory_bytes() / (4ull * static_cast<unsigned>(node_ranks));
  unsigned long long budget = 0;
  SHARDROOF_MPI_CHECK(MPI_Allreduce(&mine, &budget, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm));

  // Shapes too short are probed with few iterations; the shape that is
  // long enough gets the full timing plan (unless that is no more than the
  // probe). Every rank sees the same per-iteration maxima, so every rank
  // picks the same shapes.
  constexpr int kMaxRounds = 8;
  const TimingPlan probe{std::min(timing.warmup, 1), std::min(timing.iters, 3)};
  GemmShape shape{m, n, k};
  GemmRate rate = measure_gemm_rate(backend, comm, m, n, k, type, timing);
  bool probed = false;
  for (int round = 0; round < kMaxRounds && rate.time.median < min_seconds; ++round) {
    const GemmShape next =
        grown_gemm_shape(shape, rate.time.median, min_seconds, coll::size_of(type), static_cast<std::size_t>(budget));
    if (next == shape) break;
    shape = next;
    rate = measure_gemm_rate(backend, comm, shape.m, shape.n, shape.k, type, probe);
    probed = true;
  }
  const bool probe_is_the_plan = probe.warmup == timing.warmup && probe.iters == timing.iters;
  if (probed && !probe_is_the_plan) rate = measure_gemm_rate(backend, comm, shape.m, shape.n, shape.k, type, timing);
  return rate;
}

MemoryBandwidth measure_memory_bandwidth(ComputeBackend& backend, MPI_Comm comm, std::size_t elements,
                                         const TimingPlan& timing) {
  elements = std::max(elements, kCacheMultiple * backend.cache_bytes() / sizeof(double));
  auto kernels = backend.prepare_memory_kernels(elements);
  auto clock = backend.make_clock();
  MemoryBandwidth out;
  out.elements = elements;
  out.copy = measure(comm, timing, *clock, [&](int) { kernels->copy(); });
  out.triad = measure(comm, timing, *clock, [&](int) { kernels->triad(); });
  out.copy_bytes_per_s = copy_bytes_per_s(elements, out.copy.median);
  out.triad_bytes_per_s = triad_bytes_per_s(elements, out.triad.median);
  return out;
}

ReduceRate measure_reduce_rate(ComputeBackend& backend, MPI_Comm comm, coll::DataType type, std::size_t count,
                               const TimingPlan& timing) {
  auto& memory = backend.memory();
  const std::size_t es = coll::size_of(type);
  auto a = memory.allocate(count * es + 1), b = memory.allocate(count * es + 1), dst = memory.allocate(count * es + 1);
  {
    std::vector<std::byte> host(count * es + 1);
    fill_operand(host.data(), count, 0, type);
    memory.copy(a->data(), host.data(), count * es);
    fill_operand(host.data(), count, 1, type);
    memory.copy(b->data(), host.data(), count * es);
    memory.synchronize();
  }
  auto clock = backend.make_clock();
  ReduceRate out{count, type, {}, 0};
  out.time = measure(comm, timing, *clock,
                     [&](int) { memory.reduce(dst->data(), a->data(), b->data(), count, type, coll::ReduceOp::Sum); });
  out.s_per_elem = reduce_s_per_elem(count, out.time.median);
  return out;
}

CollectiveTime time_collective(CommSetup& setup, MPI_Comm comm, coll::CollectiveKind kind, coll::Algorithm impl,
                               const coll::CollectiveOptions& ring, coll::DataType type, std::uint64_t bytes,
                               const TimingPlan& timing) {
  auto& mem = setup.memory();
  auto collective = setup.make(kind, impl, ring);
  const std::size_t es = coll::size_of(type);
  const std::size_t count = bytes / es;
  auto send = mem.allocate(count * es + 1), recv = mem.allocate(count * es + 1);
  {
    std::vector<std::byte> host(count * es + 1);
    fill_operand(host.data(), count, setup.transport().rank(), type);
    mem.copy(send->data(), host.data(), count * es);
    mem.synchronize();
  }
  HostClock clock;
  CollectiveTime out;
  out.bytes = count * es;
  out.time = measure(comm, timing, clock, [&](int) {
    collective->run(send->data(), recv->data(), count, type, coll::ReduceOp::Sum);
    mem.synchronize();
  });
  return out;
}

}  // namespace shardroof
