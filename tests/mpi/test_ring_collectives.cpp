// Every ring collective against the MPI library's own and against the exact
// expected values of check_pattern: every datatype and op, edge counts
// around the number of ranks, a prime count and one past 2^20, in place and
// out of place, with the default segment size and a small one (so that each
// block is cut into many segments). On the largest count the small segment
// and the native baseline run with Sum only: segmentation does not depend on
// the op, and the full matrix there would make the suite slow.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/algorithms.h"
#include "collectives/blocks.h"
#include "collectives/check_pattern.h"
#include "collectives/memory.h"
#include "collectives/mpi_native.h"
#include "collectives/mpi_transport.h"
#include "collectives/ring_all_gather.h"
#include "collectives/ring_all_reduce.h"
#include "collectives/ring_reduce_scatter.h"
#include "../mpi_test_util.h"
#include "../collective_test_values.h"

namespace shardroof::coll {
namespace {

using shardroof::testing::world_rank;
using shardroof::testing::world_size;

constexpr const auto& kTypes = shardroof::testing::kAllTypes;
constexpr const auto& kOps = shardroof::testing::kAllOps;
// Small enough that even a 16-bit block of the 7919-element array on 4
// ranks is cut into several segments.
constexpr std::size_t kSmallSegment = 1024;
constexpr std::size_t kLargestCount = 1048579;
// Written around every output so that a write past its end is caught.
constexpr std::size_t kGuardBytes = 64;
constexpr unsigned char kGuard = 0xa5;

// Failure messages of one test, capped so that a broken collective does not
// bury the report under thousands of identical lines.
class FailureLog {
 public:
  std::ostream& add() {
    ++count_;
    return count_ <= kShown ? text_ : discard_;
  }
  bool empty() const { return count_ == 0; }
  std::string str() const {
    std::string s = text_.str();
    if (count_ > kShown) s += "... and " + std::to_string(count_ - kShown) + " more\n";
    return s;
  }

 private:
  static constexpr int kShown = 30;
  int count_ = 0;
  std::ostringstream text_, discard_;
};

std::unique_ptr<Collective> make_ring(CollectiveKind kind, Transport& t, MemoryOps& m, std::size_t segment) {
  CollectiveOptions o;
  o.segment_bytes = segment;
  return make_collective(Algorithm::Ring, kind, t, m, o);
}

// What every rank contributes and what the collectives must produce for one
// (count, type, op), computed once and shared by the three collectives.
struct Reference {
  Reference(std::size_t count, DataType type, ReduceOp op, int rank, int n, bool with_gather) {
    const std::size_t es = size_of(type);
    contribution.resize(count * es);
    fill_pattern(contribution.data(), count, 0, rank, n, type, op);
    reduced.resize(count * es);
    for (std::size_t i = 0; i < count; ++i) store_from_double(reduced.data(), i, expected_value(i, n, type, op), type);
    if (with_gather) {
      // AllGather: every block holds its owner's contribution.
      const BlockPartition part(count, n);
      gathered.resize(count * es);
      for (int r = 0; r < n; ++r)
        fill_pattern(gathered.data() + part.offset(r) * es, part.size(r), part.offset(r), r, n, type, op);
    }
  }
  std::vector<std::byte> contribution;  // this rank's input over the whole array
  std::vector<std::byte> reduced;       // the exact reduction (check_pattern's expected values)
  std::vector<std::byte> gathered;      // the AllGather result
};

// memcpy and memcmp for buffers that may be empty: an empty vector's data()
// may be null, and passing null to them is undefined even for zero bytes.
void copy_bytes(void* dst, const void* src, std::size_t bytes) {
  if (bytes > 0) std::memcpy(dst, src, bytes);
}
bool same_bytes(const void* a, const void* b, std::size_t bytes) {
  return bytes == 0 || std::memcmp(a, b, bytes) == 0;
}

// One collective's input and output for one (count, type, op), laid out as
// the Collective interface expects, with guard bytes after each buffer.
class Buffers {
 public:
  Buffers(CollectiveKind kind, std::size_t count, DataType type, int rank, int n, const Reference& ref)
      : kind_(kind), es_(size_of(type)), part_(count, n), rank_(rank), ref_(ref) {
    const std::size_t mine = part_.size(rank);
    in_count_ = kind == CollectiveKind::AllGather ? mine : count;
    out_count_ = kind == CollectiveKind::ReduceScatter ? mine : count;
    in_first_ = kind == CollectiveKind::AllGather ? part_.offset(rank) : 0;
    out_first_ = kind == CollectiveKind::ReduceScatter ? part_.offset(rank) : 0;
    input_ = ref.contribution.data() + in_first_ * es_;
    const auto& full_expected = kind == CollectiveKind::AllGather ? ref.gathered : ref.reduced;
    expected_ = full_expected.data() + out_first_ * es_;
  }

  // Sets up an out-of-place or in-place run; returns the (send, recv) pair.
  std::pair<const void*, void*> prepare(bool in_place) {
    in_place_ = in_place;
    const std::size_t es = es_;
    if (in_place) {
      // One full-size buffer: AllReduce/ReduceScatter read all of it; for
      // AllGather only this rank's block is input, the rest is garbage.
      work_.assign(part_.count() * es + kGuardBytes, std::byte{kGuard});
      if (kind_ == CollectiveKind::AllGather) {
        std::fill(work_.begin(), work_.begin() + static_cast<std::ptrdiff_t>(part_.count() * es), std::byte{0x7f});
        copy_bytes(work_.data() + part_.offset(rank_) * es, input_, in_count_ * es);
      } else {
        copy_bytes(work_.data(), ref_.contribution.data(), ref_.contribution.size());
      }
      std::byte* base = work_.data();
      if (kind_ == CollectiveKind::ReduceScatter) return {base, base + part_.offset(rank_) * es};
      if (kind_ == CollectiveKind::AllGather) return {base + part_.offset(rank_) * es, base};
      return {base, base};
    }
    send_.assign(in_count_ * es + kGuardBytes, std::byte{kGuard});
    copy_bytes(send_.data(), input_, in_count_ * es);
    // Garbage in the output, so a collective that skips an element is seen.
    work_.assign(out_count_ * es + kGuardBytes, std::byte{kGuard});
    std::fill(work_.begin(), work_.begin() + static_cast<std::ptrdiff_t>(out_count_ * es), std::byte{0x7f});
    return {send_.data(), work_.data()};
  }

  // The output of the last run: out_count elements.
  const std::byte* output() const {
    if (in_place_ && kind_ == CollectiveKind::ReduceScatter) return work_.data() + part_.offset(rank_) * es_;
    return work_.data();
  }
  std::size_t output_bytes() const { return out_count_ * es_; }

  // Problems with the last run, empty if none.
  std::string problems(DataType type, ReduceOp op) const {
    std::ostringstream os;
    if (!same_bytes(output(), expected_, output_bytes())) {
      os << count_wrong(output(), {part_.count(), rank_, part_.parts()}, kind_, type, op)
         << " wrong elements (of " << out_count_ << "); ";
    }
    const std::byte* guard = work_.data() + work_.size() - kGuardBytes;
    if (std::any_of(guard, guard + kGuardBytes, [](std::byte b) { return b != std::byte{kGuard}; }))
      os << "wrote past the end of its output; ";
    if (!in_place_) {
      if (!same_bytes(send_.data(), input_, in_count_ * es_)) os << "modified its input; ";
      const std::byte* sg = send_.data() + in_count_ * es_;
      if (std::any_of(sg, sg + kGuardBytes, [](std::byte b) { return b != std::byte{kGuard}; }))
        os << "wrote past the end of its input; ";
    }
    return os.str();
  }

 private:
  CollectiveKind kind_;
  std::size_t es_;
  BlockPartition part_;
  int rank_;
  const Reference& ref_;
  std::size_t in_count_ = 0, out_count_ = 0, in_first_ = 0, out_first_ = 0;
  const std::byte* input_ = nullptr;
  const std::byte* expected_ = nullptr;
  bool in_place_ = false;
  std::vector<std::byte> send_, work_;
};

constexpr CollectiveKind kKinds[] = {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter,
                                     CollectiveKind::AllGather};

// One test per datatype; inside it every op, count and collective, so the
// reference data of each (op, count) is computed once for all three.
class RingVsNative : public ::testing::TestWithParam<DataType> {};

TEST_P(RingVsNative, MatchesExpectedAndNative) {
  const DataType type = GetParam();
  const int rank = world_rank();
  const int n = world_size();
  MpiTransport transport(MPI_COMM_WORLD);
  HostMemoryOps memory;
  // One object per algorithm for the whole test, so scratch memory is
  // reused across sizes, ops and in-place runs as in a benchmark.
  struct Algorithms {
    std::unique_ptr<Collective> native, ring, ring_small;
  };
  std::vector<Algorithms> algos;
  for (const CollectiveKind kind : kKinds)
    algos.push_back({std::make_unique<MpiNativeCollective>(kind, MPI_COMM_WORLD),
                     make_ring(kind, transport, memory, CollectiveOptions{}.segment_bytes),
                     make_ring(kind, transport, memory, kSmallSegment)});

  FailureLog failures;
  int runs = 0;
  for (const ReduceOp op : kOps) {
    for (const std::size_t count : shardroof::testing::edge_counts(n, kLargestCount)) {
      // AllGather ignores the op: it runs once, with Sum's data.
      const bool with_gather = op == ReduceOp::Sum;
      const Reference ref(count, type, op, rank, n, with_gather);
      for (std::size_t k = 0; k < std::size(kKinds); ++k) {
        const CollectiveKind kind = kKinds[k];
        if (kind == CollectiveKind::AllGather && !with_gather) continue;
        Buffers buf(kind, count, type, rank, n, ref);
        const Algorithms& a = algos[k];
        for (const bool in_place : {false, true}) {
          std::vector<std::byte> native_out;
          for (Collective* c : {a.native.get(), a.ring.get(), a.ring_small.get()}) {
            // The largest count is where the suite spends its time: there
            // the small segment and the native baseline run for Sum only
            // (the ring still runs every op and is checked bit for bit
            // against the expected values, which native must equal too).
            if (count == kLargestCount && op != ReduceOp::Sum && c != a.ring.get()) continue;
            const std::string what = std::string(to_string(kind)) + " " +
                                     (c == a.native.get() ? "native" : c == a.ring.get() ? "ring" : "ring/1KiB") +
                                     " " + std::string(to_string(op)) + " count " + std::to_string(count) +
                                     (in_place ? " in place" : " out of place");
            const auto [send, recv] = buf.prepare(in_place);
            try {
              c->run(send, recv, count, type, op);
            } catch (const std::exception& e) {
              failures.add() << what << ": threw " << e.what() << "\n";
              continue;
            }
            ++runs;
            const std::string p = buf.problems(type, op);
            if (!p.empty()) failures.add() << what << ": " << p << "\n";
            if (c == a.native.get()) {
              native_out.assign(buf.output(), buf.output() + buf.output_bytes());
            } else if (native_out.size() == buf.output_bytes() &&
                       !same_bytes(native_out.data(), buf.output(), buf.output_bytes())) {
              failures.add() << what << ": differs from native\n";
            }
          }
        }
      }
    }
  }
  EXPECT_GT(runs, 0);
  EXPECT_ALL_RANKS(failures.empty(), failures.str());
}

INSTANTIATE_TEST_SUITE_P(EveryDatatype, RingVsNative, ::testing::ValuesIn(kTypes),
                         [](const auto& param_info) { return std::string(to_string(param_info.param)); });

// Back-to-back calls of different collectives on one transport must not
// mix up their messages (each uses its own tags), and a collective object
// must give the same answer when called again with a smaller count after a
// larger one (scratch memory is reused, not reallocated).
TEST(RingCollectives, RepeatedAndInterleavedCalls) {
  const int rank = world_rank();
  const int n = world_size();
  MpiTransport transport(MPI_COMM_WORLD);
  HostMemoryOps memory;
  RingAllReduce ar(transport, memory);
  RingReduceScatter rs(transport, memory);
  RingAllGather ag(transport, memory);
  FailureLog failures;
  for (const std::size_t count : {std::size_t{100003}, std::size_t{17}, std::size_t{100003}, std::size_t{5}}) {
    for (Collective* c : {static_cast<Collective*>(&ar), static_cast<Collective*>(&rs), static_cast<Collective*>(&ag)}) {
      const Reference ref(count, DataType::Float, ReduceOp::Sum, rank, n, true);
      Buffers buf(c->kind(), count, DataType::Float, rank, n, ref);
      const auto [send, recv] = buf.prepare(false);
      c->run(send, recv, count, DataType::Float, ReduceOp::Sum);
      const auto p = buf.problems(DataType::Float, ReduceOp::Sum);
      if (!p.empty()) failures.add() << to_string(c->kind()) << " count " << count << ": " << p << "\n";
    }
  }
  EXPECT_ALL_RANKS(failures.empty(), failures.str());
}

}  // namespace
}  // namespace shardroof::coll
