// AllToAll by pairwise exchange.
//
// Algorithm: rank r's input holds N blocks (BlockPartition(count, N)); block
// d is for rank d. Rank r first copies its own block r into its output slot
// r, then in step k = 1..N-1 sends block (r+k) mod N to rank r+k and
// receives the block of rank (r-k) mod N into output slot r-k, one peer pair
// per step (the receive is posted before the send). Every pair of ranks
// exchanges exactly one message each way, so messages between two ranks
// never need tags to match, and at most one send and one receive per rank
// are in flight: the schedule works on any transport, NCCL included, and
// spreads the traffic so no rank receives from two peers at once.
// In place the input is first copied to scratch (one local copy of count
// elements, kept between calls), since output slots overlap input blocks
// not yet sent.
//
// Cost (alpha-beta, S = count * element size bytes of one rank's input,
// blocks of S/N):
//   T = (N-1) * (alpha + S/N * beta) = (N-1) * alpha + (N-1)/N * S * beta
// (+ S * beta_copy in place). nccl-tests counts busbw = algbw * (N-1)/N,
// the fraction of S that crosses links.
#pragma once

#include <memory>

#include "collectives/collective.h"
#include "collectives/memory.h"
#include "collectives/collective_options.h"
#include "collectives/transport.h"

namespace shardroof::coll {

class PairwiseAllToAll final : public Collective {
 public:
  // transport and memory are borrowed and must outlive the collective.
  PairwiseAllToAll(Transport& transport, MemoryOps& memory, CollectiveOptions options = {});
  ~PairwiseAllToAll() override;
  CollectiveKind kind() const override { return CollectiveKind::AllToAll; }
  std::string algorithm() const override { return "pairwise"; }
  void run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override;

 private:
  Transport& transport_;
  MemoryOps& memory_;
  CollectiveOptions options_;
  std::unique_ptr<Allocation> scratch_;  // the input, in place
};

}  // namespace shardroof::coll
