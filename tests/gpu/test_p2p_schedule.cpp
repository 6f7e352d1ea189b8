// The NCCL transport's issuing rule (collectives/cuda/p2p_queue.h), checked
// without a GPU: every rank runs the real ring algorithms over a transport
// that records the groups NcclTransport would issue on its stream, and a
// model of NCCL then plays the streams. In the model a group is one kernel
// that ends when all its operations end, and a send ends only when its
// matching receive (the i-th from that sender) is in the peer's running
// group: no buffering, the worst case NCCL can reach for large messages.
// The paired rule must never deadlock; issuing everything queued at once
// must, which shows the model can tell.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <utility>
#include <vector>

#include "collectives/algorithms.h"
#include "collectives/cuda/p2p_queue.h"
#include "collectives/memory.h"
#include "collectives/traits.h"
#include "collectives/transport.h"

namespace shardroof::coll {
namespace {

class RecordingTransport final : public Transport {
 public:
  RecordingTransport(int rank, int size, P2pFlushPolicy policy) : rank_(rank), size_(size), queue_(policy) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string_view name() const override { return "recording"; }
  MemorySpace memory_space() const override { return MemorySpace::Host; }
  RequestPtr isend(const void* buf, std::size_t bytes, int peer, int) override {
    return post(true, const_cast<void*>(buf), bytes, peer);
  }
  RequestPtr irecv(void* buf, std::size_t bytes, int peer, int) override { return post(false, buf, bytes, peer); }

  std::vector<std::vector<P2pOp>> groups;  // the stream, in issue order
  std::size_t queued() const { return queue_.queued(); }

 private:
  class Req final : public Request {
   public:
    Req(RecordingTransport* t, std::uint64_t id) : t_(t), id_(id) {}
    ~Req() override { wait(); }
    void wait() override {
      if (!t_) return;
      auto group = t_->queue_.take_for(id_);
      if (!group.empty()) t_->groups.push_back(std::move(group));
      t_ = nullptr;
    }

   private:
    RecordingTransport* t_;
    std::uint64_t id_;
  };
  RequestPtr post(bool send, void* buf, std::size_t bytes, int peer) {
    return std::make_unique<Req>(this, queue_.post(send, buf, bytes, peer));
  }
  int rank_, size_;
  P2pQueue queue_;
};

struct Played {
  bool completed = false;
  bool sizes_match = true;
};

// Plays every rank's stream under the unbuffered model.
Played play(const std::vector<std::vector<std::vector<P2pOp>>>& streams) {
  const int n = static_cast<int>(streams.size());
  // Position of each op in its channel: (src, dst) -> k-th message.
  struct Where {
    int rank;
    std::size_t group;
    std::size_t index;
  };
  std::map<std::pair<int, int>, std::vector<Where>> sends, recvs;
  for (int r = 0; r < n; ++r)
    for (std::size_t g = 0; g < streams[r].size(); ++g)
      for (std::size_t i = 0; i < streams[r][g].size(); ++i) {
        const auto& op = streams[r][g][i];
        (op.send ? sends[{r, op.peer}] : recvs[{op.peer, r}]).push_back({r, g, i});
      }
  Played result;
  // partner[r][g][i]: where the matching op lives.
  std::vector<std::vector<std::vector<Where>>> partner(n);
  for (int r = 0; r < n; ++r) {
    partner[r].resize(streams[r].size());
    for (std::size_t g = 0; g < streams[r].size(); ++g) partner[r][g].assign(streams[r][g].size(), {-1, 0, 0});
  }
  for (auto& [channel, list] : sends) {
    const auto& other = recvs[channel];
    if (other.size() != list.size()) return result;  // unmatched messages: never completes
    for (std::size_t k = 0; k < list.size(); ++k) {
      const auto& s = list[k];
      const auto& q = other[k];
      if (streams[s.rank][s.group][s.index].bytes != streams[q.rank][q.group][q.index].bytes)
        result.sizes_match = false;
      partner[s.rank][s.group][s.index] = q;
      partner[q.rank][q.group][q.index] = s;
    }
  }
  std::vector<std::size_t> head(n, 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int r = 0; r < n; ++r) {
      if (head[r] >= streams[r].size()) continue;
      // The running group ends when every op's partner is running too.
      bool all = true;
      for (std::size_t i = 0; i < streams[r][head[r]].size() && all; ++i) {
        const auto& p = partner[r][head[r]][i];
        if (p.rank < 0) return result;
        // The partner's group is running, or already finished (it could only
        // finish with this op matched, so that means this op is done).
        all = head[p.rank] >= p.group;
      }
      if (all) {
        ++head[r];
        progress = true;
      }
    }
  }
  result.completed = true;
  for (int r = 0; r < n; ++r) result.completed = result.completed && head[r] == streams[r].size();
  return result;
}

// Our algorithms of `kind` that the NCCL setup offers (those that need no tags).
std::vector<Algorithm> without_tags(CollectiveKind kind) {
  std::vector<Algorithm> out;
  for (const OwnAlgorithm& a : traits(kind).algorithms)
    if (!a.needs_tag_matching) out.push_back(a.algorithm);
  return out;
}

Played schedule(Algorithm algorithm, CollectiveKind kind, int n, std::size_t count, std::size_t segment_bytes,
                P2pFlushPolicy policy, int root = 0) {
  std::vector<std::vector<std::vector<P2pOp>>> streams;
  for (int r = 0; r < n; ++r) {
    RecordingTransport t(r, n, policy);
    HostMemoryOps mem;
    CollectiveOptions opt;
    opt.segment_bytes = segment_bytes;
    opt.broadcast.root = root;
    // hier: two ranks per node where n is even, else one (its two levels,
    // or the flat ring over one-rank nodes).
    for (int q = 0; q < n; ++q) opt.hier.node_of_rank.push_back(n % 2 == 0 ? q / 2 : q);
    // AllToAll's output is N blocks of this rank's block: up to count + N.
    const auto room = count + static_cast<std::size_t>(n) + 1;
    std::vector<float> in(room, 1.0f), out(room, 0.0f);
    // As the NCCL setup builds them: auto never runs an algorithm that needs tags there.
    auto c = algorithm == Algorithm::Auto ? make_auto_collective(kind, t, mem, opt, {}, without_tags(kind))
                                          : make_collective(algorithm, kind, t, mem, opt);
    c->run(in.data(), out.data(), count, DataType::Float, ReduceOp::Sum);
    EXPECT_EQ(t.queued(), 0u) << "rank " << r << " left operations unissued";
    streams.push_back(std::move(t.groups));
  }
  return play(streams);
}

// What the NCCL setup offers: every algorithm of ours that needs no tags
// (ring, direct, hier, pairwise all-to-all), and auto choosing among them
// (pairwise ReduceScatter, AllGather and AllReduce are refused there, see
// below); broadcast from the first and the last rank.
TEST(NcclIssueRule, OurCollectivesNeverDeadlock) {
  for (const CollectiveTraits& t : all_collectives()) {
    std::vector<Algorithm> algorithms = without_tags(t.kind);
    algorithms.push_back(Algorithm::Auto);
    for (const Algorithm algorithm : algorithms) {
      for (int n = 2; n <= 6; ++n) {
        const std::vector<int> roots = t.kind == CollectiveKind::Broadcast ? std::vector<int>{0, n - 1} : std::vector<int>{0};
        // Counts where blocks differ by one element and segment counts differ by one.
        for (const std::size_t count : {std::size_t{1}, std::size_t{5}, std::size_t{1000}, std::size_t{4097},
                                        std::size_t{40'000}}) {
          for (const std::size_t seg : {std::size_t{16}, std::size_t{1000}, std::size_t{1} << 20}) {
            for (const int root : roots) {
              const Played p = schedule(algorithm, t.kind, n, count, seg, P2pFlushPolicy::Paired, root);
              EXPECT_TRUE(p.completed) << to_string(algorithm) << " " << t.name << " n=" << n << " count=" << count
                                       << " segment=" << seg << " root=" << root;
              EXPECT_TRUE(p.sizes_match);
            }
          }
        }
      }
    }
  }
}

// Pairwise keeps both phases' messages (two tags) in flight between the same
// two ranks; without tags NCCL would pair them wrongly, so the NCCL setup
// refuses it. The model sees the mismatch.
TEST(NcclIssueRule, PairwiseNeedsTagsNcclDoesNotHave) {
  const Played p = schedule(Algorithm::Pairwise, CollectiveKind::AllReduce, 2, 1000, 64, P2pFlushPolicy::Paired);
  EXPECT_FALSE(p.completed && p.sizes_match);
}

// A ring step as a transport user may write it: both sends queued, then one
// receive posted and waited for before the next is posted. Under the paired
// rule each receive issues with one send; issuing everything queued puts
// both sends in one group, whose second send waits for a receive the
// neighbour posts only after that group ends.
std::vector<std::vector<std::vector<P2pOp>>> receive_window_ring(int n, P2pFlushPolicy policy) {
  std::vector<std::vector<std::vector<P2pOp>>> streams;
  for (int r = 0; r < n; ++r) {
    RecordingTransport t(r, n, policy);
    std::array<float, 2> out{}, in{};
    const int next = (r + 1) % n, prev = (r + n - 1) % n;
    std::vector<RequestPtr> sends;
    sends.push_back(t.isend(&out[0], sizeof(float), next, 0));
    sends.push_back(t.isend(&out[1], sizeof(float), next, 0));
    for (float& slot : in) t.irecv(&slot, sizeof(float), prev, 0)->wait();
    for (auto& s : sends) s->wait();
    EXPECT_EQ(t.queued(), 0u);
    streams.push_back(std::move(t.groups));
  }
  return streams;
}

TEST(NcclIssueRule, IssuingEverythingQueuedCanDeadlock) {
  for (int n = 2; n <= 4; ++n) {
    EXPECT_TRUE(play(receive_window_ring(n, P2pFlushPolicy::Paired)).completed) << n;
    EXPECT_FALSE(play(receive_window_ring(n, P2pFlushPolicy::All)).completed) << n;
  }
}

TEST(NcclIssueRule, WaitOnSendIssuesItAndReceives) {
  P2pQueue q;
  int buf = 0;
  const auto s1 = q.post(true, &buf, 4, 1);
  const auto s2 = q.post(true, &buf, 4, 1);
  const auto r1 = q.post(false, &buf, 4, 2);
  const auto s3 = q.post(true, &buf, 4, 1);
  auto g = q.take_for(s2);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0].id, s1);
  EXPECT_EQ(g[1].id, s2);
  EXPECT_EQ(g[2].id, r1);
  EXPECT_TRUE(q.take_for(s1).empty());  // already issued
  g = q.take_for(s3);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(q.queued(), 0u);
}

}  // namespace
}  // namespace shardroof::coll
