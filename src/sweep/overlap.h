// sweep --overlap K: the step (GEMM, then the collective of the partial
// sum) split into K chunks, where chunk k's collective runs while chunk
// k + 1's GEMM computes (README, "shardroof sweep").
//
// Chunks follow the rows of Z (the B dimension), not its columns. Z is
// row-major, so a run of rows is one contiguous range of the partial sum:
// its GEMM is a dense GEMM on the same rows of X, and its collective runs
// on the range where the GEMM left it, with nothing packed or copied in the
// timed step. Chunks of columns would be strided B x F/K pieces that no
// collective can take without a copy.
//
// The result has the layout of the unchunked step, so the same check reads
// it:
//  - AllReduce: chunk k is the k-th of K balanced blocks of rows; its
//    collective reduces those rows of every rank's partial sum into the
//    same rows of Z.
//  - ReduceScatter: rank r must end with its block of the unchunked step
//    (block r of BlockPartition(B*F, N), a run of rows that starts and ends
//    mid-row in general). A ReduceScatter of a block of rows would spread
//    that block over all ranks instead, so each rank's block is cut into K
//    balanced pieces, in order, and chunk k gathers piece k of every
//    rank's block. Its GEMM writes those pieces next to each other, in rank
//    order, in the partial-sum buffer; a ReduceScatter of that packed chunk
//    then gives rank r exactly its piece k, received at the piece's place
//    in its block. (The pieces are the chunk's BlockPartition blocks: rank
//    blocks differ by at most one element, and so do their k-th pieces,
//    the larger ones on the lower ranks.) A piece's GEMM is up to three
//    blocks: the end of a row, whole rows, the start of a row.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "collectives/collective.h"

namespace shardroof::sweep {

// Rows [row, row + rows) and columns [col, col + cols) of Z, computed into
// the partial-sum buffer densely (rows x cols, row-major) from element `dst`.
struct ChunkBlock {
  std::size_t row = 0, rows = 0, col = 0, cols = 0;
  std::size_t dst = 0;
};

struct Chunk {
  std::vector<ChunkBlock> blocks;  // the chunk's GEMM
  // The chunk's collective, in elements: `count` elements of the partial-sum
  // buffer from `send`; this rank's result goes to element `recv` of its Z
  // (all of Z for AllReduce, its block for ReduceScatter).
  std::size_t send = 0, count = 0, recv = 0;
};

// The largest K: B for AllReduce (a row per chunk), and for ReduceScatter
// the smallest rank's block of Z, floor(B*F/N) elements (an element of every
// block per chunk); never below 1.
std::size_t max_chunks(std::size_t B, std::size_t F, int ranks, coll::CollectiveKind kind);

// Throws UsageError (naming --overlap) unless 1 <= chunks <= max_chunks.
void validate_chunks(std::size_t B, std::size_t F, int ranks, coll::CollectiveKind kind, long long chunks);

// The K chunks of a step on `rank` of `ranks`, in order. Every chunk holds at
// least one element; the blocks of all chunks cover Z once. `growth`: chunk
// k + 1 is about `growth` times chunk k (1: balanced, the first B % K rows
// one larger). Where the link takes longer than the GEMM (T_comm/T_math = q
// > 1), chunks growing by q let each GEMM end as the previous chunk's
// collective does, so the link never waits and only the first chunk's GEMM
// is exposed: T_overlap = T_math e_1 + T_comm with e_1 = (q-1)/(q^K-1) of
// the rows instead of 1/K; where the GEMM takes longer (q < 1) they shrink,
// and only the last, small, collective is exposed.
std::vector<Chunk> plan_chunks(std::size_t B, std::size_t F, int ranks, int rank, coll::CollectiveKind kind,
                               int chunks, double growth = 1.0);

// `total` items in `chunks` runs growing by `growth` (each at least 1; the
// sum exactly `total`, which must be at least `chunks`); growth 1 gives the
// balanced partition.
std::vector<std::size_t> chunk_sizes(std::size_t total, int chunks, double growth);

// The communication thread reduces chunks while the main thread computes;
// the main thread makes no MPI call from handing over the first chunk until
// the last is reduced, so MPI_THREAD_SERIALIZED suffices. Throws UsageError
// naming the level this MPI library provides (`provided`, from
// MPI_Init_thread) when it is lower.
void require_thread_support(int provided);

// The communication thread of an overlapped step. It is started once,
// before anything is timed, and kept across iterations: a step hands it
// chunk numbers in order through a condition variable, it runs reduce(k) for
// each, and the step waits for the last. Nothing is allocated or started
// inside a step.
class ChunkWorker {
 public:
  // `enter` runs first on the new thread (the backend's per-thread setup).
  ChunkWorker(std::function<void()> enter, std::function<void(std::size_t)> reduce);
  ~ChunkWorker();
  ChunkWorker(const ChunkWorker&) = delete;
  ChunkWorker& operator=(const ChunkWorker&) = delete;

  // Hands over chunk k: 0, 1, 2, ... within a step.
  void submit(std::size_t k);
  // Returns once every chunk handed over has been reduced; the next step
  // starts again at chunk 0. Rethrows the thread's error: after one, the
  // thread reduces nothing more and every wait() rethrows it.
  void wait();
  // True once every chunk handed over has been reduced (or dropped after an
  // error): polls without blocking, for a caller that keeps its core busy
  // meanwhile.
  bool finished();

 private:
  void loop(const std::function<void()>& enter);

  std::function<void(std::size_t)> reduce_;
  std::mutex mutex_;
  std::condition_variable work_;  // the thread waits here for a chunk
  std::condition_variable idle_;  // wait() waits here for the last chunk
  std::size_t submitted_ = 0;
  std::size_t done_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: everything above exists when it starts
};

}  // namespace shardroof::sweep
