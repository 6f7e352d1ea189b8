#include "cpu/cpu_backend.h"

#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "collectives/half.h"
#include "hardware/blas_kernel.h"
#include "util/error.h"

namespace shardroof {
namespace {

void widen_bf16(const void* src, float* dst, std::size_t count) {
  const auto* s = static_cast<const std::uint16_t*>(src);
  for (std::size_t i = 0; i < count; ++i) dst[i] = coll::bf16_to_float(s[i]);
}

void round_to_bf16(const float* src, void* dst, std::size_t count) {
  auto* d = static_cast<std::uint16_t*>(dst);
  for (std::size_t i = 0; i < count; ++i) d[i] = coll::float_to_bf16(src[i]);
}

int blas_int(std::size_t v) { return static_cast<int>(v); }

// C = A*B in float, row-major. A and C are dense; B's rows are ldb
// elements apart (ldb = n unless B is a block of columns of a wider matrix).
void sgemm(std::size_t m, std::size_t n, std::size_t k, const float* A, const float* B, std::size_t ldb, float* C) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::memset(C, 0, m * n * sizeof(float));
    return;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blas_int(m), blas_int(n), blas_int(k), 1.0f,
              A, blas_int(k), B, blas_int(ldb), 0.0f, C, blas_int(n));
}

void dgemm(std::size_t m, std::size_t n, std::size_t k, const double* A, const double* B, std::size_t ldb,
           double* C) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::memset(C, 0, m * n * sizeof(double));
    return;
  }
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blas_int(m), blas_int(n), blas_int(k), 1.0,
              A, blas_int(k), B, blas_int(ldb), 0.0, C, blas_int(n));
}

// bfloat16 with the operands widened once, at preparation: run() times the
// float GEMM and the rounding of C to bfloat16, which is the work a bfloat16
// GEMM with float accumulation does.
class PreparedBf16Gemm final : public ComputeBackend::PreparedGemm {
 public:
  PreparedBf16Gemm(std::size_t m, std::size_t n, std::size_t k, const void* A, const void* B, void* C)
      : m_(m), n_(n), k_(k), a_(m * k), b_(k * n), c_(m * n), C_(C) {
    widen_bf16(A, a_.data(), a_.size());
    widen_bf16(B, b_.data(), b_.size());
  }
  void run() override {
    sgemm(m_, n_, k_, a_.data(), b_.data(), n_, c_.data());
    round_to_bf16(c_.data(), C_, c_.size());
  }
  std::string timed_work() const override {
    return "float GEMM on bfloat16 values widened before timing, then rounding C to bfloat16";
  }

 private:
  std::size_t m_, n_, k_;
  std::vector<float> a_, b_, c_;
  void* C_;
};

// The chunked product on the host: run(c) computes chunk c's blocks and
// returns when they are done, so a reducing thread that is handed c after
// run(c) has nothing to wait for. bfloat16 is widened once for all chunks,
// as in PreparedBf16Gemm; each block is rounded to bfloat16 into its place.
class CpuGemmChunks final : public ComputeBackend::PreparedGemmChunks {
 public:
  CpuGemmChunks(std::size_t m, std::size_t n, std::size_t k, const void* A, const void* B,
                std::vector<std::vector<ComputeBackend::GemmBlock>> chunks, coll::DataType type)
      : n_(n), k_(k), A_(A), B_(B), chunks_(std::move(chunks)), type_(type) {
    if (type != coll::DataType::Float && type != coll::DataType::Double && type != coll::DataType::BFloat16)
      throw RuntimeError(fmt::format("cpu backend: no GEMM for {}", coll::to_string(type)));
    if (type == coll::DataType::BFloat16) {
      a_.resize(m * k);
      b_.resize(k * n);
      widen_bf16(A, a_.data(), a_.size());
      widen_bf16(B, b_.data(), b_.size());
      std::size_t largest = 0;
      for (const auto& chunk : chunks_)
        for (const auto& block : chunk) largest = std::max(largest, block.rows * block.cols);
      c_.resize(largest);
    }
  }

  void begin() override {}
  void run(std::size_t c) override {
    for (const auto& block : chunks_[c]) run_block(block);
  }
  void wait_for(std::size_t) override {}

 private:
  void run_block(const ComputeBackend::GemmBlock& b) {
    switch (type_) {
      case coll::DataType::Float:
        sgemm(b.rows, b.cols, k_, static_cast<const float*>(A_) + b.row * k_,
              static_cast<const float*>(B_) + b.col, n_, static_cast<float*>(b.dst));
        return;
      case coll::DataType::Double:
        dgemm(b.rows, b.cols, k_, static_cast<const double*>(A_) + b.row * k_,
              static_cast<const double*>(B_) + b.col, n_, static_cast<double*>(b.dst));
        return;
      case coll::DataType::BFloat16:
        sgemm(b.rows, b.cols, k_, a_.data() + b.row * k_, b_.data() + b.col, n_, c_.data());
        round_to_bf16(c_.data(), b.dst, b.rows * b.cols);
        return;
      default: return;  // refused at preparation
    }
  }

  std::size_t n_, k_;
  const void* A_;
  const void* B_;
  std::vector<std::vector<ComputeBackend::GemmBlock>> chunks_;
  coll::DataType type_;
  std::vector<float> a_, b_, c_;
};

class CpuBackend final : public ComputeBackend {
 public:
  explicit CpuBackend(int threads) : threads_(threads), library_(hw::query_blas().library) {
    if (threads < 1) throw_usage("--threads: must be at least 1, got {}", threads);
    if (!hw::set_blas_threads(threads) && threads != 1)
      throw_usage("--threads {}: {} takes its threads from its own variable (MKL_NUM_THREADS, OMP_NUM_THREADS, ...), "
                  "not from a call: set it in every rank's environment and leave --threads at 1",
                  threads, library_);
  }

  std::string describe() const override {
    return fmt::format("cpu ({}, {} thread{})", library_, threads_, threads_ == 1 ? "" : "s");
  }
  coll::MemoryOps& memory() override { return memory_; }

  void gemm(std::size_t m, std::size_t n, std::size_t k, const void* A, const void* B, void* C,
            coll::DataType type) override {
    switch (type) {
      case coll::DataType::Float:
        sgemm(m, n, k, static_cast<const float*>(A), static_cast<const float*>(B), n, static_cast<float*>(C));
        return;
      case coll::DataType::Double:
        dgemm(m, n, k, static_cast<const double*>(A), static_cast<const double*>(B), n, static_cast<double*>(C));
        return;
      case coll::DataType::BFloat16: {
        // Unprepared: the widening is part of the call.
        std::vector<float> a(m * k), b(k * n), c(m * n);
        widen_bf16(A, a.data(), a.size());
        widen_bf16(B, b.data(), b.size());
        sgemm(m, n, k, a.data(), b.data(), n, c.data());
        round_to_bf16(c.data(), C, c.size());
        return;
      }
      default:
        throw RuntimeError(fmt::format("cpu backend: no GEMM for {}", coll::to_string(type)));
    }
  }

  std::unique_ptr<PreparedGemm> prepare_gemm(std::size_t m, std::size_t n, std::size_t k, const void* A,
                                             const void* B, void* C, coll::DataType type) override {
    if (type == coll::DataType::BFloat16) return std::make_unique<PreparedBf16Gemm>(m, n, k, A, B, C);
    return ComputeBackend::prepare_gemm(m, n, k, A, B, C, type);
  }

  std::unique_ptr<PreparedGemmChunks> prepare_gemm_chunks(std::size_t m, std::size_t n, std::size_t k, const void* A,
                                                          const void* B, std::vector<std::vector<GemmBlock>> chunks,
                                                          coll::DataType type) override {
    return std::make_unique<CpuGemmChunks>(m, n, k, A, B, std::move(chunks), type);
  }

  std::string arithmetic(coll::DataType type) const override {
    switch (type) {
      case coll::DataType::Float: return fmt::format("float ({} sgemm)", library_);
      case coll::DataType::Double: return fmt::format("double ({} dgemm)", library_);
      case coll::DataType::BFloat16:
        return fmt::format("bfloat16 stored and communicated, multiplied in float ({} sgemm; no bfloat16 GEMM)",
                           library_);
      default: return "unsupported";
    }
  }
  bool supports(coll::DataType type) const override {
    return type == coll::DataType::Float || type == coll::DataType::Double ||
           type == coll::DataType::BFloat16;
  }
  std::unique_ptr<Clock> make_clock() override { return std::make_unique<HostClock>(); }
  void synchronize() override {}

 private:
  int threads_;
  std::string library_;  // the linked BLAS, as it names itself
  coll::HostMemoryOps memory_;
};

}  // namespace

std::unique_ptr<ComputeBackend> make_cpu_backend(int threads) { return std::make_unique<CpuBackend>(threads); }

}  // namespace shardroof
