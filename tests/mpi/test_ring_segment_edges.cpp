// Every ring collective at the edges of its segmentation. With a segment of
// s elements (CollectiveOptions::segment_bytes rounded down to whole elements, at
// least one), every rank's block holds 1, s-1, s, s+1, 2s-1, 2s or 2s+1
// elements: one element short of a segment, exactly one, one over (a last
// segment of one element), and the same around two segments. Each of those
// block sizes runs with equal blocks and with uneven ones (count % N = 1 and
// N-1, so neighbours hold b and b+1 elements and a step sends one segment
// count while it receives another). The segment sizes: 1 byte, one element,
// one element and a half (not a multiple of the element size, so it rounds
// down), 3 elements and 1 byte, 1001 bytes (several segments per block, an
// odd byte count for every datatype), and one larger than the whole message.
// Every datatype (element sizes 2, 4 and 8), in place and out of place.
//
// Each run is checked bit for bit against check_pattern's expected values,
// for writes past the end of its output and for changes to its input. A
// transport that records the messages the reduction phase sends makes sure
// the edges were really reached: no message larger than a segment, and a
// message of a whole segment wherever a block holds one.
//
// The counts stay far below the sanitizer build's cap
// (SHARDROOF_TEST_MAX_COUNT), so that build runs every case too; a cap
// below them fails the test instead of dropping cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/blocks.h"
#include "collectives/check_pattern.h"
#include "collectives/memory.h"
#include "collectives/mpi_transport.h"
#include "collectives/algorithms.h"
#include "../collective_test_values.h"
#include "../mpi_test_util.h"

namespace shardroof::coll {
namespace {

using shardroof::testing::world_rank;
using shardroof::testing::world_size;

constexpr std::size_t kGuardBytes = 32;
constexpr std::byte kGuard{0xa5};
constexpr std::byte kGarbage{0x7f};
// The tag base every ring here uses; the reduction phase sends on it.
constexpr int kTag = 0x5300;

// MpiTransport that remembers the largest message sent on the reduction
// phase's tag since the last reset().
class RecordingTransport final : public Transport {
 public:
  explicit RecordingTransport(MPI_Comm comm) : mpi_(comm) {}
  int rank() const override { return mpi_.rank(); }
  int size() const override { return mpi_.size(); }
  std::string_view name() const override { return "recording mpi"; }
  MemorySpace memory_space() const override { return MemorySpace::Host; }
  RequestPtr isend(const void* buf, std::size_t bytes, int peer, int tag) override {
    if (tag == kTag) largest_reduce_message_ = std::max(largest_reduce_message_, bytes);
    return mpi_.isend(buf, bytes, peer, tag);
  }
  RequestPtr irecv(void* buf, std::size_t bytes, int peer, int tag) override {
    return mpi_.irecv(buf, bytes, peer, tag);
  }
  void reset() { largest_reduce_message_ = 0; }
  std::size_t largest_reduce_message() const { return largest_reduce_message_; }

 private:
  MpiTransport mpi_;
  std::size_t largest_reduce_message_ = 0;
};

struct Case {
  CollectiveKind kind;
  DataType type;
  std::size_t segment_bytes;
  std::size_t count;
  bool in_place;
  std::string describe() const {
    std::ostringstream os;
    os << to_string(kind) << " " << to_string(type) << " segment " << segment_bytes << " B count " << count
       << (in_place ? " in place" : " out of place");
    return os.str();
  }
};

// Runs one case on this rank; returns what is wrong with it (empty: nothing).
std::string run_case(const Case& c, RecordingTransport& transport, HostMemoryOps& memory) {
  const int rank = transport.rank();
  const int n = transport.size();
  const std::size_t es = size_of(c.type);
  const BlockPartition part(c.count, n);
  const std::size_t mine = part.size(rank), first = part.offset(rank);
  const bool gather = c.kind == CollectiveKind::AllGather;
  const std::size_t in_count = gather ? mine : c.count;
  const std::size_t out_count = c.kind == CollectiveKind::ReduceScatter ? mine : c.count;

  // This rank's contribution over the whole array (AllGather reads its block).
  std::vector<std::byte> contribution(c.count * es + 1);
  fill_pattern(contribution.data(), c.count, 0, rank, n, c.type, ReduceOp::Sum);
  const std::byte* input = contribution.data() + (gather ? first * es : 0);

  // Buffers with guard bytes after them; the output starts as garbage.
  std::vector<std::byte> send, work;
  const void* send_ptr = nullptr;
  std::byte* out = nullptr;
  if (c.in_place) {
    work.assign(c.count * es + kGuardBytes, kGuard);
    std::fill(work.begin(), work.begin() + static_cast<std::ptrdiff_t>(c.count * es), kGarbage);
    if (gather) {
      std::memcpy(work.data() + first * es, input, mine * es);
      send_ptr = work.data() + first * es;
      out = work.data();
    } else {
      std::memcpy(work.data(), input, c.count * es);
      send_ptr = work.data();
      out = c.kind == CollectiveKind::ReduceScatter ? work.data() + first * es : work.data();
    }
  } else {
    send.assign(in_count * es + kGuardBytes, kGuard);
    std::memcpy(send.data(), input, in_count * es);
    work.assign(out_count * es + kGuardBytes, kGuard);
    std::fill(work.begin(), work.begin() + static_cast<std::ptrdiff_t>(out_count * es), kGarbage);
    send_ptr = send.data();
    out = work.data();
  }

  CollectiveOptions options;
  options.segment_bytes = c.segment_bytes;
  options.tag = kTag;
  std::ostringstream problems;
  transport.reset();
  try {
    make_collective(Algorithm::Ring, c.kind, transport, memory, options)
        ->run(send_ptr, out, c.count, c.type, ReduceOp::Sum);
  } catch (const std::exception& e) {
    return "threw " + std::string(e.what());
  }

  const std::size_t wrong = count_wrong(out, {c.count, rank, n}, c.kind, c.type, ReduceOp::Sum);
  if (wrong > 0) problems << wrong << " wrong elements of " << out_count << "; ";
  const std::byte* guard = work.data() + work.size() - kGuardBytes;
  if (std::any_of(guard, guard + kGuardBytes, [](std::byte b) { return b != kGuard; }))
    problems << "wrote past the end of its output; ";
  if (!c.in_place) {
    if (in_count > 0 && std::memcmp(send.data(), input, in_count * es) != 0) problems << "modified its input; ";
    const std::byte* send_guard = send.data() + in_count * es;
    if (std::any_of(send_guard, send_guard + kGuardBytes, [](std::byte b) { return b != kGuard; }))
      problems << "wrote past the end of its input; ";
  }

  // The segmentation itself: the reduction phase (ReduceScatter, and the
  // first phase of AllReduce) never sends more than a segment, and sends a
  // whole one wherever a block it sends holds at least one.
  if (!gather && n > 1) {
    const std::size_t segment = std::max<std::size_t>(1, c.segment_bytes / es) * es;
    std::size_t largest_block_sent = 0;
    for (int step = 0; step < n - 1; ++step)
      largest_block_sent = std::max(largest_block_sent, part.size(((rank - step - 1) % n + n) % n) * es);
    const std::size_t want = std::min(segment, largest_block_sent);
    if (transport.largest_reduce_message() != want)
      problems << "largest message of the reduction " << transport.largest_reduce_message() << " B, expected "
               << want << " B (segment " << segment << " B, largest block sent " << largest_block_sent << " B); ";
  }
  return problems.str();
}

// Element counts per block at the edges of a segment of s elements.
std::vector<std::size_t> block_counts(std::size_t s) {
  std::vector<std::size_t> b = {1, s - 1, s, s + 1, 2 * s - 1, 2 * s, 2 * s + 1};
  std::sort(b.begin(), b.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  return b;
}

// Whole counts for blocks of b elements on n ranks: all equal, and uneven
// (the first 1 or n-1 blocks one element longer).
std::vector<std::size_t> counts_for_block(std::size_t b, int n) {
  const auto u = static_cast<std::size_t>(n);
  std::vector<std::size_t> c = {b * u, b * u + 1, b * u + u - 1};
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

constexpr CollectiveKind kKinds[] = {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter,
                                     CollectiveKind::AllGather};

class RingSegmentEdges : public ::testing::TestWithParam<DataType> {};

TEST_P(RingSegmentEdges, EveryBlockAroundOneAndTwoSegments) {
  const DataType type = GetParam();
  const std::size_t es = size_of(type);
  const int n = world_size();
  RecordingTransport transport(MPI_COMM_WORLD);
  HostMemoryOps memory;

  // (segment bytes, counts to run with it)
  std::vector<std::pair<std::size_t, std::vector<std::size_t>>> plan;
  const std::size_t segment_sizes[] = {1, es, es + es / 2, 3 * es + 1, 1001};
  for (const std::size_t seg : segment_sizes) {
    std::vector<std::size_t> counts;
    for (const std::size_t b : block_counts(std::max<std::size_t>(1, seg / es)))
      for (const std::size_t c : counts_for_block(b, n)) counts.push_back(c);
    plan.emplace_back(seg, counts);
  }
  // A segment larger than the whole message, for a few block sizes.
  for (const std::size_t b : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64}})
    for (const std::size_t c : counts_for_block(b, n)) plan.push_back({c * es + es + 1, {c}});

  std::size_t largest = 0;
  for (const auto& [seg, counts] : plan) largest = std::max(largest, *std::max_element(counts.begin(), counts.end()));
  ASSERT_LE(largest, shardroof::testing::max_test_count())
      << "SHARDROOF_TEST_MAX_COUNT is below this test's largest count; lower the segment sizes instead of "
         "dropping cases";

  std::ostringstream failures;
  int failed = 0, runs = 0;
  for (const auto& [seg, counts] : plan) {
    for (const std::size_t count : counts) {
      for (const CollectiveKind kind : kKinds) {
        for (const bool in_place : {false, true}) {
          const Case c{kind, type, seg, count, in_place};
          const std::string p = run_case(c, transport, memory);
          ++runs;
          if (!p.empty() && ++failed <= 30) failures << c.describe() << ": " << p << "\n";
        }
      }
    }
  }
  if (failed > 30) failures << "... and " << failed - 30 << " more\n";
  EXPECT_GT(runs, 0);
  EXPECT_ALL_RANKS(failed == 0, failures.str());
}

INSTANTIATE_TEST_SUITE_P(EveryDatatype, RingSegmentEdges, ::testing::ValuesIn(shardroof::testing::kAllTypes),
                         [](const auto& param_info) { return std::string(to_string(param_info.param)); });

}  // namespace
}  // namespace shardroof::coll
