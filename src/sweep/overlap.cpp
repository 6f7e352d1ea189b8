#include "sweep/overlap.h"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "collectives/blocks.h"
#include "util/error.h"

namespace shardroof::sweep {
namespace {

// Blocks that compute elements [first, first + count) of row-major Z into
// the partial-sum buffer from `dst`: the rest of a row begun mid-row, then
// whole rows, then the start of a last row.
void add_range(std::vector<ChunkBlock>& blocks, std::size_t F, std::size_t first, std::size_t count, std::size_t dst) {
  while (count > 0) {
    const std::size_t row = first / F, col = first % F;
    ChunkBlock b;
    if (col != 0 || count < F) {
      b = {row, 1, col, std::min(count, F - col), dst};
    } else {
      b = {row, count / F, 0, F, dst};
    }
    const std::size_t n = b.rows * b.cols;
    blocks.push_back(b);
    first += n;
    count -= n;
    dst += n;
  }
}

const char* thread_level_name(int level) {
  if (level == MPI_THREAD_SINGLE) return "MPI_THREAD_SINGLE";
  if (level == MPI_THREAD_FUNNELED) return "MPI_THREAD_FUNNELED";
  if (level == MPI_THREAD_SERIALIZED) return "MPI_THREAD_SERIALIZED";
  if (level == MPI_THREAD_MULTIPLE) return "MPI_THREAD_MULTIPLE";
  return "an unknown level";
}

}  // namespace

std::size_t max_chunks(std::size_t B, std::size_t F, int ranks, coll::CollectiveKind kind) {
  if (kind == coll::CollectiveKind::ReduceScatter)
    return std::max<std::size_t>(1, coll::BlockPartition(B * F, ranks).size(ranks - 1));
  return std::max<std::size_t>(1, B);
}

void validate_chunks(std::size_t B, std::size_t F, int ranks, coll::CollectiveKind kind, long long chunks) {
  if (chunks < 1) throw_usage("--overlap: must be a whole number of chunks, at least 1 (1: no overlap), got {}", chunks);
  const std::size_t most = max_chunks(B, F, ranks, kind);
  if (static_cast<unsigned long long>(chunks) <= most) return;
  if (kind == coll::CollectiveKind::ReduceScatter)
    throw_usage("--overlap {}: reduce_scatter splits every rank's block of Z into the chunks, and the smallest block "
                "holds {} elements (B*F/N = {}*{}/{}), so at most {} chunks",
                chunks, B * F / static_cast<std::size_t>(ranks), B, F, ranks, most);
  throw_usage("--overlap {}: Z is split along its rows, so at most --B = {} chunks", chunks, B);
}

std::vector<std::size_t> chunk_sizes(std::size_t total, int chunks, double growth) {
  const auto K = static_cast<std::size_t>(std::max(chunks, 1));
  std::vector<std::size_t> out(K, 0);
  if (growth == 1.0 || K == 1 || total < K) {
    // Balanced: the first total % K one larger (coll::BlockPartition).
    const coll::BlockPartition even(total, chunks);
    for (std::size_t k = 0; k < K; ++k) out[k] = even.size(static_cast<int>(k));
    return out;
  }
  // Weights growth^k, taken relative to the largest so none overflows.
  std::vector<double> w(K);
  double sum = 0;
  for (std::size_t k = 0; k < K; ++k) {
    const double e = growth > 1 ? static_cast<double>(k) - static_cast<double>(K - 1) : static_cast<double>(k);
    w[k] = std::pow(growth, e);
    sum += w[k];
  }
  // Each its share, at least 1; the rest to the largest remainders, or taken
  // from the largest chunks when the floor of 1 overdrew.
  std::vector<double> rest(K);
  std::size_t given = 0;
  for (std::size_t k = 0; k < K; ++k) {
    const double share = static_cast<double>(total) * w[k] / sum;
    out[k] = std::max<std::size_t>(1, static_cast<std::size_t>(std::floor(share)));
    rest[k] = share - std::floor(share);
    given += out[k];
  }
  std::vector<std::size_t> order(K);
  for (std::size_t k = 0; k < K; ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rest[a] > rest[b]; });
  for (std::size_t i = 0; given < total; i = (i + 1) % K, ++given) ++out[order[i]];
  while (given > total) {
    const auto largest = std::max_element(out.begin(), out.end());
    --*largest;
    --given;
  }
  return out;
}

std::vector<Chunk> plan_chunks(std::size_t B, std::size_t F, int ranks, int rank, coll::CollectiveKind kind,
                               int chunks, double growth) {
  validate_chunks(B, F, ranks, kind, chunks);
  if (!(growth > 0) || !std::isfinite(growth)) throw std::invalid_argument("plan_chunks: growth must be positive");
  const auto K = static_cast<std::size_t>(chunks);
  std::vector<Chunk> out(K);
  if (kind != coll::CollectiveKind::ReduceScatter) {
    const std::vector<std::size_t> rows = chunk_sizes(B, chunks, growth);
    std::size_t row = 0;
    for (std::size_t k = 0; k < K; ++k) {
      Chunk& c = out[k];
      c.send = c.recv = row * F;
      c.count = rows[k] * F;
      add_range(c.blocks, F, c.send, c.count, c.send);
      row += rows[k];
    }
    return out;
  }
  const coll::BlockPartition zpart(B * F, ranks);
  // Piece k of rank r's block. Balanced: BlockPartition(block, K). Graded:
  // the sizes of the smallest block, floor(B*F/N), graded, and the ranks
  // with one element more (the lowest) keep it in the last piece, so each
  // chunk's pieces are still that chunk's BlockPartition over the ranks.
  const std::vector<std::size_t> graded =
      growth == 1.0 ? std::vector<std::size_t>{} : chunk_sizes(zpart.size(ranks - 1), chunks, growth);
  const auto pieces_of = [&](int r) {
    std::vector<std::size_t> sizes;
    if (graded.empty()) {
      sizes = chunk_sizes(zpart.size(r), chunks, 1.0);
    } else {
      sizes = graded;
      sizes.back() += zpart.size(r) - zpart.size(ranks - 1);
    }
    return sizes;
  };
  std::vector<std::vector<std::size_t>> piece_sizes, piece_offsets;
  for (int r = 0; r < ranks; ++r) {
    piece_sizes.push_back(pieces_of(r));
    std::vector<std::size_t> offsets(K, 0);
    for (std::size_t k = 1; k < K; ++k) offsets[k] = offsets[k - 1] + piece_sizes.back()[k - 1];
    piece_offsets.push_back(std::move(offsets));
  }
  std::size_t packed = 0;
  for (std::size_t k = 0; k < K; ++k) {
    Chunk& c = out[k];
    c.send = packed;
    // Piece k of every rank's block, as (first element of Z, count); pieces
    // that touch in Z (only when K = 1) become one range.
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    for (int r = 0; r < ranks; ++r) {
      const auto ri = static_cast<std::size_t>(r);
      const std::size_t first = zpart.offset(r) + piece_offsets[ri][k];
      const std::size_t n = piece_sizes[ri][k];
      if (r == rank) c.recv = piece_offsets[ri][k];
      c.count += n;
      if (n == 0) continue;
      if (!ranges.empty() && ranges.back().first + ranges.back().second == first) {
        ranges.back().second += n;
      } else {
        ranges.emplace_back(first, n);
      }
    }
    std::size_t dst = packed;
    for (const auto& [first, n] : ranges) {
      add_range(c.blocks, F, first, n, dst);
      dst += n;
    }
    packed += c.count;
  }
  return out;
}

void require_thread_support(int provided) {
  if (provided >= MPI_THREAD_SERIALIZED) return;
  throw_usage("--overlap: the communication thread needs MPI_THREAD_SERIALIZED or better, but this MPI library "
              "provides {}; run without --overlap, or use an MPI built with thread support",
              thread_level_name(provided));
}

ChunkWorker::ChunkWorker(std::function<void()> enter, std::function<void(std::size_t)> reduce)
    : reduce_(std::move(reduce)), thread_([this, enter = std::move(enter)] { loop(enter); }) {}

ChunkWorker::~ChunkWorker() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  work_.notify_one();
  thread_.join();
}

void ChunkWorker::submit(std::size_t k) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (k != submitted_) throw std::logic_error("ChunkWorker: chunks must be handed over in order");
    submitted_ = k + 1;
  }
  work_.notify_one();
}

void ChunkWorker::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [&] { return done_ == submitted_; });
  submitted_ = 0;
  done_ = 0;
  if (error_) std::rethrow_exception(error_);
}

bool ChunkWorker::finished() {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_ == submitted_;
}

void ChunkWorker::loop(const std::function<void()>& enter) {
  std::exception_ptr failed;
  try {
    if (enter) enter();
  } catch (...) {
    failed = std::current_exception();
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if (failed) error_ = failed;
  for (;;) {
    work_.wait(lock, [&] { return stop_ || done_ < submitted_; });
    // Chunks still pending at destruction are dropped: the step that handed
    // them over has failed, and the other ranks may not reduce them.
    if (stop_) return;
    const std::size_t k = done_;
    if (!error_) {
      lock.unlock();
      try {
        reduce_(k);
      } catch (...) {
        failed = std::current_exception();
      }
      lock.lock();
      if (failed && !error_) error_ = failed;
    }
    ++done_;
    if (done_ == submitted_) idle_.notify_one();
  }
}

}  // namespace shardroof::sweep
