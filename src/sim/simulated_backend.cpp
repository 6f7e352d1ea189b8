#include "sim/simulated_backend.h"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <utility>

#include "collectives/simulated_host.h"
#include "util/error.h"

namespace shardroof::sim {

double injected_gemm_seconds(std::size_t m, std::size_t n, std::size_t k, std::size_t element_bytes, double flops,
                             double memory_bytes_per_s) {
  const double dm = static_cast<double>(m), dn = static_cast<double>(n), dk = static_cast<double>(k);
  const double compute = flops > 0 ? 2.0 * dm * dn * dk / flops : 0;
  const double bytes = (dm * dk + dk * dn + dm * dn) * static_cast<double>(element_bytes);
  const double memory = memory_bytes_per_s > 0 ? bytes / memory_bytes_per_s : 0;
  return std::max(compute, memory);
}

namespace {

class InjectedGemm final : public ComputeBackend::PreparedGemm {
 public:
  InjectedGemm(double seconds, std::string what) : seconds_(seconds), what_(std::move(what)) {}
  void run() override { coll::sim::charge_seconds(seconds_); }
  std::string timed_work() const override { return what_; }

 private:
  double seconds_;
  std::string what_;
};

class InjectedGemmChunks final : public ComputeBackend::PreparedGemmChunks {
 public:
  explicit InjectedGemmChunks(std::vector<double> seconds) : seconds_(std::move(seconds)) {}
  void begin() override {}
  void run(std::size_t c) override { coll::sim::charge_seconds(seconds_.at(c)); }
  void wait_for(std::size_t) override {}

 private:
  std::vector<double> seconds_;
};

class InjectedMemoryKernels final : public ComputeBackend::MemoryKernels {
 public:
  InjectedMemoryKernels(std::size_t elements, double bytes_per_s)
      : bytes_(static_cast<double>(elements) * sizeof(double)), rate_(bytes_per_s) {}
  void copy() override { coll::sim::charge_seconds(2 * bytes_ / rate_); }
  void triad() override { coll::sim::charge_seconds(3 * bytes_ / rate_); }

 private:
  double bytes_;
  double rate_;
};

class SimulatedBackend final : public ComputeBackend {
 public:
  SimulatedBackend(std::unique_ptr<ComputeBackend> inner, SimulatedCompute compute)
      : inner_(std::move(inner)), c_(std::move(compute)) {
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    ranks_ = std::max(ranks, 1);
  }

  std::string describe() const override {
    if (c_.injected)
      return fmt::format("{}, simulated: nothing computed, the time of each GEMM injected from preset {} "
                         "(max(2mnk/C, operand bytes/M), M = {:.4g} B/s), reductions charged at M, copies free",
                         inner_->describe(), c_.preset, c_.memory_bytes_per_s);
    return fmt::format("{}, simulated: computation benchmarked on this machine, scaled by smpi/host-speed {:.4g} "
                       "FLOP/s over the simulated host's {:.4g} FLOP/s (x{:.3g})",
                       inner_->describe(), c_.benchmark_speed, c_.host_speed,
                       c_.host_speed > 0 ? c_.benchmark_speed / c_.host_speed : 0.0);
  }
  coll::MemoryOps& memory() override { return inner_->memory(); }

  void gemm(std::size_t m, std::size_t n, std::size_t k, const void* A, const void* B, void* C,
            coll::DataType type) override {
    if (!c_.injected) return inner_->gemm(m, n, k, A, B, C, type);
    coll::sim::charge_seconds(seconds(m, n, k, type));
  }
  std::string arithmetic(coll::DataType type) const override {
    if (!c_.injected) return inner_->arithmetic(type);
    return fmt::format("none: simulated {} GEMM at C = {:.4g} FLOP/s (preset {})", coll::to_string(type),
                       flops(type), c_.preset);
  }
  bool supports(coll::DataType type) const override {
    return inner_->supports(type) && (!c_.injected || flops(type) > 0);
  }
  bool computes_values() const override { return !c_.injected; }
  std::unique_ptr<Clock> make_clock() override { return inner_->make_clock(); }
  void synchronize() override { inner_->synchronize(); }

  std::unique_ptr<PreparedGemm> prepare_gemm(std::size_t m, std::size_t n, std::size_t k, const void* A,
                                             const void* B, void* C, coll::DataType type) override {
    if (!c_.injected) return inner_->prepare_gemm(m, n, k, A, B, C, type);
    const double t = seconds(m, n, k, type);
    return std::make_unique<InjectedGemm>(
        t, fmt::format("nothing computed: the time of the {} GEMM injected ({:.4g} s: max(2mnk/C, operand bytes/M))",
                       coll::to_string(type), t));
  }
  std::unique_ptr<PreparedGemmChunks> prepare_gemm_chunks(std::size_t m, std::size_t n, std::size_t k, const void* A,
                                                          const void* B, std::vector<std::vector<GemmBlock>> chunks,
                                                          coll::DataType type) override {
    if (!c_.injected) return inner_->prepare_gemm_chunks(m, n, k, A, B, std::move(chunks), type);
    std::vector<double> per_chunk;
    for (const auto& chunk : chunks) {
      double t = 0;
      for (const auto& block : chunk) t += seconds(block.rows, block.cols, k, type);
      per_chunk.push_back(t);
    }
    return std::make_unique<InjectedGemmChunks>(std::move(per_chunk));
  }
  std::unique_ptr<MemoryKernels> prepare_memory_kernels(std::size_t elements) override {
    if (!c_.injected) return inner_->prepare_memory_kernels(elements);
    return std::make_unique<InjectedMemoryKernels>(elements, c_.memory_bytes_per_s);
  }
  std::size_t cache_bytes() const override { return inner_->cache_bytes(); }
  // Every simulated rank lives in this one process: each may count on its
  // share of this machine's memory, not on all of it.
  std::size_t free_memory_bytes() const override {
    return inner_->free_memory_bytes() / static_cast<std::size_t>(ranks_);
  }

 private:
  double flops(coll::DataType type) const {
    const auto it = c_.flops.find(type);
    return it == c_.flops.end() ? 0 : it->second;
  }
  double seconds(std::size_t m, std::size_t n, std::size_t k, coll::DataType type) const {
    return injected_gemm_seconds(m, n, k, coll::size_of(type), flops(type), c_.memory_bytes_per_s);
  }

  std::unique_ptr<ComputeBackend> inner_;
  SimulatedCompute c_;
  int ranks_ = 1;
};

}  // namespace

std::unique_ptr<ComputeBackend> make_simulated_backend(std::unique_ptr<ComputeBackend> inner,
                                                       SimulatedCompute compute) {
  if (compute.injected && !(compute.memory_bytes_per_s > 0))
    throw RuntimeError("the simulated platform injects local work but gives no memory bandwidth "
                       "(host property shardroof/memory_bytes_per_s)");
  return std::make_unique<SimulatedBackend>(std::move(inner), std::move(compute));
}

}  // namespace shardroof::sim
