// The plain records of `shardroof link` and of the ring probe: rank pairs,
// where ranks run, the plan and the measured times. No MPI: link/pairs.h,
// link/ping_pong.h and link/ring_probe.h produce them; reporters read them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "link/alpha_beta_fit.h"
#include "timing/stats.h"

namespace shardroof::link {

struct RankPair {
  // Ping-pong and bidir: the rank that sends first (src < dst). Shift and
  // ring: the rank that sends to dst (either order).
  int src = 0;
  int dst = 0;
  friend bool operator==(const RankPair& a, const RankPair& b) { return a.src == b.src && a.dst == b.dst; }
};

// Where each rank runs: the shared-memory node it belongs to
// (MPI_Comm_split_type MPI_COMM_TYPE_SHARED) and its host name.
struct Topology {
  std::vector<int> node_of_rank;  // node index (0, 1, ... in order of first rank)
  std::vector<std::string> host_of_rank;
  int nodes = 1;
  bool same_node(int a, int b) const { return node_of_rank.at(a) == node_of_rank.at(b); }
};

// The traffic `shardroof link` times (link/patterns.h says more).
enum class Pattern {
  PingPong,  // one pair at a time, one direction at a time (round trip / 2)
  Bidir,     // one pair at a time, both directions at once
  Shift,     // in step k = 1 .. N-1 every rank sends to rank+k and receives from rank-k, all at once
  Ring,      // every rank sends to rank+1 and receives from rank-1, all at once
};

struct LinkPlan {
  std::vector<std::uint64_t> sizes;  // message bytes, ascending
  TimingPlan timing;
  std::vector<RankPair> pairs;
  bool check = true;  // verify the echoed (bidir: the peer's) bytes after timing
  Pattern pattern = Pattern::PingPong;  // measure_pairs takes PingPong or Bidir
};

struct SizeTime {
  std::uint64_t bytes = 0;
  TimeStats one_way;  // seconds: round trip / 2
};

struct PairMeasurement {
  RankPair pair;
  std::vector<SizeTime> times;  // one per plan size, same order (one_way: the time one message takes)
  long long wrong = -1;         // bytes that came back different; -1 when not checked
  int shift = 0;                // shift and ring: the step (dst = src + shift mod N); 0 for a lone pair
};

struct RingProbeResult {
  std::vector<std::uint64_t> bytes;  // per step and rank
  std::vector<TimeStats> step_time;  // seconds for every rank's send and receive to finish
  AlphaBetaFit fit;                  // t(m) = alpha + m/W over the sizes
  long long wrong = 0;               // received bytes that were not the left neighbour's, over all ranks
  // One per sending rank r, the transfer r -> r + shift: per size, over
  // iterations, the max of r's send completion and the receiver's receive
  // completion (each on its own clock from the iteration's barrier); wrong
  // is what the receiver got wrong, -1 when not checked.
  std::vector<PairMeasurement> transfers;
};

// The ring probe inside every node at once, and across the nodes on every
// local index at once (ranks that share a link out of their node share it
// here as in hier, so the inter level's W is already each flow's share).
struct TwoLevelProbes {
  int nodes = 1;
  int ranks_per_node = 1;
  RingProbeResult intra;
  RingProbeResult inter;
  // Each ring across the nodes alone (one local index at a time, the others
  // idle): one flow's rate. inter_alone is this rank's own ring's probe;
  // every rank has every ring's fit, by local index, and their wrong bytes.
  RingProbeResult inter_alone;
  std::vector<AlphaBetaFit> inter_alone_fits;
  long long inter_alone_wrong = 0;
};

// The ring probe on each level of L nested levels (link/level_probe.h),
// innermost first. `phase`: hier's ring at that level, every ring of the
// level at once (the g_l ranks that differ in c_l alone), on the block that
// level's ring step moves; its W is each flow's share where rings share
// links out of a group. `span`: a flat ring over every rank of one group of
// that level, every group at once, on the block of S/P_l: the flat ring
// when a shard's ranks span that level. A level of one unit per unit (g_l =
// 1) moves nothing and has no probe.
struct LevelProbe {
  int level = 0;
  int group_size = 1;      // g_l
  long long ranks = 1;     // P_l = g_0 * ... * g_l
  RingProbeResult phase;
  RingProbeResult span;
};

struct LevelProbes {
  std::vector<int> sizes;  // g_0, g_1, ..., innermost first
  std::vector<LevelProbe> levels;  // those with g_l > 1
  long long wrong() const {
    long long w = 0;
    for (const auto& l : levels) w += l.phase.wrong + l.span.wrong;
    return w;
  }
};

}  // namespace shardroof::link
