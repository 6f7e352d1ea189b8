#include "collectives/cuda/mpi_device_transport.h"

#include <algorithm>

#include "collectives/cuda/cuda_check.h"

namespace shardroof::coll {

PinnedPool::Lease::~Lease() {
  if (pool_ && buf_) {
    const std::lock_guard<std::mutex> lock(pool_->mutex_);
    pool_->free_.push_back(std::move(buf_));
  }
}

std::unique_ptr<PinnedPool::Lease> PinnedPool::acquire(std::size_t bytes) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    // The smallest free buffer that fits.
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if ((*it)->bytes() >= bytes && (best == free_.end() || (*it)->bytes() < (*best)->bytes())) best = it;
    }
    if (best != free_.end()) {
      auto buf = std::move(*best);
      free_.erase(best);
      return std::make_unique<Lease>(this, std::move(buf));
    }
  }
  // Round up so that slightly different sizes (balanced blocks) share buffers.
  constexpr std::size_t kGranule = std::size_t{64} << 10;
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + kGranule - 1) / kGranule * kGranule;
  return std::make_unique<Lease>(this, std::make_unique<PinnedAllocation>(rounded));
}

std::size_t PinnedPool::pooled_bytes() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::size_t total = 0;
  for (const auto& b : free_) total += b->bytes();
  return total;
}

namespace {

// A send from a staging buffer: the buffer returns to the pool once MPI is done.
class StagedSend final : public Request {
 public:
  StagedSend(RequestPtr mpi, std::unique_ptr<PinnedPool::Lease> staging)
      : mpi_(std::move(mpi)), staging_(std::move(staging)) {}
  void wait() override {
    if (mpi_) mpi_->wait();
    mpi_.reset();
    staging_.reset();
  }
  bool test() override {
    if (mpi_ && !mpi_->test()) return false;
    wait();
    return true;
  }

 private:
  RequestPtr mpi_;
  std::unique_ptr<PinnedPool::Lease> staging_;
};

// A receive into a staging buffer; wait() moves the data to the device.
class StagedRecv final : public Request {
 public:
  StagedRecv(RequestPtr mpi, std::unique_ptr<PinnedPool::Lease> staging, void* device, std::size_t bytes,
             cudaStream_t stream)
      : mpi_(std::move(mpi)), staging_(std::move(staging)), device_(device), bytes_(bytes), stream_(stream) {}
  ~StagedRecv() override {
    // Completing the MPI receive is enough here; the copy is skipped (no
    // one waited for the data) and the lease is returned.
    if (mpi_) {
      try {
        mpi_->wait();
      } catch (...) {
      }
    }
  }
  void wait() override {
    if (!mpi_) return;
    mpi_->wait();
    mpi_.reset();
    if (bytes_ > 0) {
      SHARDROOF_CUDA_CHECK(cudaMemcpyAsync(device_, staging_->data(), bytes_, cudaMemcpyHostToDevice, stream_));
      // The staging buffer may be reused as soon as the lease ends.
      SHARDROOF_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    staging_.reset();
  }
  // Polls MPI; once the data is in, finishes like wait() (the copy to the device).
  bool test() override {
    if (mpi_ && !mpi_->test()) return false;
    wait();
    return true;
  }

 private:
  RequestPtr mpi_;
  std::unique_ptr<PinnedPool::Lease> staging_;
  void* device_;
  std::size_t bytes_;
  cudaStream_t stream_;
};

}  // namespace

MpiDeviceTransport::MpiDeviceTransport(MPI_Comm comm, cudaStream_t stream, DeviceMpiMode mode)
    : host_(comm), stream_(stream), mode_(mode) {}

RequestPtr MpiDeviceTransport::isend(const void* buf, std::size_t bytes, int peer, int tag) {
  if (mode_ == DeviceMpiMode::Direct) {
    // The data may still be being produced by queued kernels.
    SHARDROOF_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return host_.isend(buf, bytes, peer, tag);
  }
  auto staging = pool_.acquire(bytes);
  if (bytes > 0) {
    SHARDROOF_CUDA_CHECK(cudaMemcpyAsync(staging->data(), buf, bytes, cudaMemcpyDeviceToHost, stream_));
    SHARDROOF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  auto mpi = host_.isend(staging->data(), bytes, peer, tag);
  return std::make_unique<StagedSend>(std::move(mpi), std::move(staging));
}

RequestPtr MpiDeviceTransport::irecv(void* buf, std::size_t bytes, int peer, int tag) {
  if (mode_ == DeviceMpiMode::Direct) {
    // Queued kernels may still read this buffer (e.g. the reduction of the
    // segment received into it two segments ago).
    SHARDROOF_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return host_.irecv(buf, bytes, peer, tag);
  }
  auto staging = pool_.acquire(bytes);
  auto mpi = host_.irecv(staging->data(), bytes, peer, tag);
  return std::make_unique<StagedRecv>(std::move(mpi), std::move(staging), buf, bytes, stream_);
}

}  // namespace shardroof::coll
