// MpiTransport's splitting of large messages into pieces of at most
// max_piece_bytes: the logic that carries byte counts past 2^31 through
// MPI's int counts, exercised with a lowered piece size so the buffers stay
// small.
#include <gtest/gtest.h>

#include <unistd.h>

#include <climits>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/blocks.h"
#include "collectives/check_pattern.h"
#include "collectives/error.h"
#include "collectives/memory.h"
#include "collectives/mpi_transport.h"
#include "collectives/ring_all_gather.h"
#include "collectives/ring_all_reduce.h"
#include "collectives/ring_reduce_scatter.h"
#include "../mpi_test_util.h"

namespace shardroof::coll {
namespace {

using shardroof::testing::world_rank;
using shardroof::testing::world_size;

std::vector<unsigned char> bytes_from(int rank, std::size_t n) {
  std::vector<unsigned char> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>((i * 31 + static_cast<std::size_t>(rank) * 7 + i / 251) & 0xff);
  return v;
}

TEST(MpiTransport, DefaultPieceIsOneGiB) {
  MpiTransport t(MPI_COMM_WORLD);
  EXPECT_EQ(t.max_piece_bytes(), MpiTransport::kMaxPieceBytes);
  EXPECT_EQ(MpiTransport::kMaxPieceBytes, std::size_t{1} << 30);
  EXPECT_LE(MpiTransport::kMaxPieceBytes, static_cast<std::size_t>(INT_MAX));
  EXPECT_EQ(t.rank(), world_rank());
  EXPECT_EQ(t.size(), world_size());
}

TEST(MpiTransport, RejectsPieceSizesMpiCannotCount) {
  EXPECT_THROW(MpiTransport(MPI_COMM_WORLD, 0), InvalidArgument);
  EXPECT_THROW(MpiTransport(MPI_COMM_WORLD, static_cast<std::size_t>(INT_MAX) + 1), InvalidArgument);
  EXPECT_NO_THROW(MpiTransport(MPI_COMM_WORLD, static_cast<std::size_t>(INT_MAX)));
}

// Every rank gets one policy (the polling algorithms' peers wait alike), and
// a node running more ranks than it has online CPUs yields: whatever the
// ranks' affinity, their union cannot hold more CPUs than the node has.
TEST(MpiTransport, WaitPolicyIsOneAnswerAndYieldsWhereRanksOutnumberCpus) {
  const WaitPolicy policy = wait_policy_for(MPI_COMM_WORLD);
  const int mine = policy == WaitPolicy::Yield ? 1 : 0;
  int lowest = 0, highest = 0;
  MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &highest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lowest, highest) << "ranks disagree on the wait policy";
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_ranks = 0;
  MPI_Comm_size(node, &node_ranks);
  MPI_Comm_free(&node);
  if (node_ranks > static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN))) {
    EXPECT_EQ(policy, WaitPolicy::Yield);
  }
  if (world_size() == 1) {
    EXPECT_EQ(policy, WaitPolicy::Spin);  // one rank always has a CPU
  }
  EXPECT_EQ(MpiTransport(MPI_COMM_WORLD, MpiTransport::kMaxPieceBytes, policy).wait_policy(), policy);
}

// The sender's pieces, as they arrive on the wire: received with plain MPI
// calls so the test sees each MPI message and its size.
TEST(MpiTransport, SplitsAMessageIntoPiecesOfAtMostTheLimit) {
  const int rank = world_rank();
  const int n = world_size();
  constexpr std::size_t kPiece = 1000;
  const std::size_t bytes = 3 * kPiece + 5;  // slightly more than three pieces
  MpiTransport t(MPI_COMM_WORLD, kPiece);
  const int next = (rank + 1) % n;
  const int prev = (rank + n - 1) % n;
  const auto payload = bytes_from(rank, bytes);
  auto send = t.isend(payload.data(), bytes, next, 77);

  std::vector<unsigned char> got(bytes);
  std::vector<int> sizes;
  std::size_t offset = 0;
  std::ostringstream problems;
  while (offset < bytes) {
    MPI_Status st;
    MPI_Probe(prev, 77, MPI_COMM_WORLD, &st);
    int len = 0;
    MPI_Get_count(&st, MPI_BYTE, &len);
    if (len <= 0 || offset + static_cast<std::size_t>(len) > bytes) {
      problems << "unexpected piece of " << len << " bytes at offset " << offset;
      break;
    }
    MPI_Recv(got.data() + offset, len, MPI_BYTE, prev, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sizes.push_back(len);
    offset += static_cast<std::size_t>(len);
  }
  send->wait();
  if (sizes != std::vector<int>{1000, 1000, 1000, 5}) {
    problems << "pieces:";
    for (int s : sizes) problems << ' ' << s;
  }
  if (got != bytes_from(prev, bytes)) problems << " data differs";
  EXPECT_ALL_RANKS(problems.str().empty(), problems.str());
}

// Both ends through the transport: pieces reassemble in order, for sizes
// just below, at and just above multiples of the piece size, and zero.
TEST(MpiTransport, PiecesReassembleInOrder) {
  const int rank = world_rank();
  const int n = world_size();
  constexpr std::size_t kPiece = 4096;
  MpiTransport t(MPI_COMM_WORLD, kPiece);
  const int next = (rank + 1) % n;
  const int prev = (rank + n - 1) % n;
  std::ostringstream problems;
  for (const std::size_t bytes : {std::size_t{0}, std::size_t{1}, kPiece - 1, kPiece, kPiece + 1,
                                  5 * kPiece - 1, 5 * kPiece + 3, std::size_t{1} << 20}) {
    const auto payload = bytes_from(rank, bytes);
    std::vector<unsigned char> got(bytes, 0);
    t.sendrecv(payload.data(), bytes, next, got.data(), bytes, prev, 5);
    if (got != bytes_from(prev, bytes)) problems << bytes << " bytes: data differs; ";
  }
  EXPECT_ALL_RANKS(problems.str().empty(), problems.str());
}

// The ring collectives over a transport whose pieces are smaller than their
// segments and blocks: every message they send is split.
TEST(MpiTransport, RingCollectivesOverSplitMessages) {
  const int rank = world_rank();
  const int n = world_size();
  MpiTransport t(MPI_COMM_WORLD, 3000);  // not a multiple of any element size
  HostMemoryOps mem;
  CollectiveOptions opts;
  opts.segment_bytes = 64 * 1024;
  RingAllReduce ar(t, mem, opts);
  RingReduceScatter rs(t, mem, opts);
  RingAllGather ag(t, mem, opts);
  const std::size_t count = 100003;
  const DataType type = DataType::Double;
  const BlockPartition part(count, n);
  std::ostringstream problems;

  std::vector<double> in(count), out(count);
  fill_pattern(in.data(), count, 0, rank, n, type, ReduceOp::Sum);
  ar.run(in.data(), out.data(), count, type, ReduceOp::Sum);
  if (auto w = count_wrong(out.data(), {count, rank, n}, CollectiveKind::AllReduce, type, ReduceOp::Sum))
    problems << "all_reduce: " << w << " wrong; ";

  std::vector<double> block(part.size(rank));
  rs.run(in.data(), block.data(), count, type, ReduceOp::Sum);
  if (auto w = count_wrong(block.data(), {count, rank, n}, CollectiveKind::ReduceScatter, type, ReduceOp::Sum))
    problems << "reduce_scatter: " << w << " wrong; ";

  std::vector<double> mine(part.size(rank));
  fill_pattern(mine.data(), mine.size(), part.offset(rank), rank, n, type, ReduceOp::Sum);
  ag.run(mine.data(), out.data(), count, type, ReduceOp::Sum);
  if (auto w = count_wrong(out.data(), {count, rank, n}, CollectiveKind::AllGather, type, ReduceOp::Sum))
    problems << "all_gather: " << w << " wrong; ";
  EXPECT_ALL_RANKS(problems.str().empty(), problems.str());
}

}  // namespace
}  // namespace shardroof::coll
