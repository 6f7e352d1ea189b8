#include "sweep/ceilings.h"

#include <algorithm>
#include <memory>

#include "collectives/blocks.h"
#include "sweep/operands.h"

namespace shardroof::sweep {

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
    fill_x_shard(host.data(), type, 7, m, {0, k});
    mem.copy(a->data(), host.data(), m * k * es);
    fill_y_shard(host.data(), type, 7, n, {0, k});
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

MemoryBandwidth measure_memory_bandwidth(MPI_Comm comm, std::size_t elements, const TimingPlan& timing) {
  std::vector<double> a(elements, 1.0), b(elements, 2.0), c(elements, 0.5);
  HostClock clock;
  MemoryBandwidth out;
  out.elements = elements;
  const double scalar = 3.0;
  out.copy = measure(comm, timing, clock, [&](int) {
    double* __restrict dst = c.data();
    const double* __restrict src = a.data();
    for (std::size_t i = 0; i < elements; ++i) dst[i] = src[i];
  });
  out.triad = measure(comm, timing, clock, [&](int) {
    double* __restrict dst = a.data();
    const double* __restrict x = b.data();
    const double* __restrict y = c.data();
    for (std::size_t i = 0; i < elements; ++i) dst[i] = x[i] + scalar * y[i];
  });
  out.copy_bytes_per_s = copy_bytes_per_s(elements, out.copy.median);
  out.triad_bytes_per_s = triad_bytes_per_s(elements, out.triad.median);
  // Keep the results observable so the loops are not optimised away.
  volatile double sink = a[elements / 2] + c[elements / 3];
  (void)sink;
  return out;
}

ReduceRate measure_reduce_rate(coll::MemoryOps& memory, MPI_Comm comm, coll::DataType type, std::size_t count,
                               const TimingPlan& timing) {
  const std::size_t es = coll::size_of(type);
  auto a = memory.allocate(count * es + 1), b = memory.allocate(count * es + 1), dst = memory.allocate(count * es + 1);
  {
    std::vector<std::byte> host(count * es + 1);
    fill_y_shard(host.data(), type, 11, count, {0, 1});
    memory.copy(a->data(), host.data(), count * es);
    fill_y_shard(host.data(), type, 11, count, {1, 1});
    memory.copy(b->data(), host.data(), count * es);
    memory.synchronize();
  }
  HostClock clock;
  ReduceRate out{count, type, {}, 0};
  out.time = measure(comm, timing, clock, [&](int) {
    memory.reduce(dst->data(), a->data(), b->data(), count, type, coll::ReduceOp::Sum);
    memory.synchronize();
  });
  out.s_per_elem = reduce_s_per_elem(count, out.time.median);
  return out;
}

std::vector<std::uint64_t> fit_sizes(std::uint64_t center, std::size_t element_bytes) {
  std::vector<std::uint64_t> out;
  for (const double f : {0.5, 0.75, 1.0, 1.25, 1.5}) {
    auto s = static_cast<std::uint64_t>(static_cast<double>(center) * f) / element_bytes * element_bytes;
    s = std::max<std::uint64_t>(s, element_bytes);
    if (out.empty() || out.back() != s) out.push_back(s);
  }
  return out;
}

CollectiveTimings time_collective_sizes(CommSetup& setup, MPI_Comm comm, coll::CollectiveKind kind, Impl impl,
                                        const coll::RingOptions& ring, coll::DataType type,
                                        const std::vector<std::uint64_t>& bytes, const TimingPlan& timing) {
  auto& mem = setup.memory();
  auto collective = setup.make(kind, impl, ring);
  const std::size_t es = coll::size_of(type);
  const std::uint64_t max_bytes = bytes.empty() ? 0 : *std::max_element(bytes.begin(), bytes.end());
  const std::size_t max_count = max_bytes / es;
  auto send = mem.allocate(max_count * es + 1), recv = mem.allocate(max_count * es + 1);
  {
    std::vector<std::byte> host(max_count * es + 1);
    fill_y_shard(host.data(), type, 13, max_count, {static_cast<std::size_t>(setup.transport().rank()), 1});
    mem.copy(send->data(), host.data(), max_count * es);
    mem.synchronize();
  }
  HostClock clock;
  CollectiveTimings out;
  // The sizes take turns within each iteration, so a change of load (or of
  // the transport's state) during the fit shifts every size alike and tilts
  // the line less.
  std::vector<IterationFn> ops;
  for (const auto s : bytes) {
    const std::size_t count = s / es;
    ops.push_back([&, count](int) {
      collective->run(send->data(), recv->data(), count, type, coll::ReduceOp::Sum);
      mem.synchronize();
    });
  }
  out.bytes = bytes;
  out.time = measure_interleaved(comm, timing, clock, ops);
  std::vector<double> x, y;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    x.push_back(static_cast<double>(bytes[i]));
    y.push_back(out.time[i].median);
  }
  out.line = least_squares(x, y);
  return out;
}

}  // namespace shardroof::sweep
