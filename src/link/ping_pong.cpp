#include "link/ping_pong.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "collectives/memory.h"
#include "collectives/mpi_transport.h"
#include "link/packed_pair.h"
#include "util/comm_handle.h"
#include "util/watchdog.h"
#include "util/units.h"

namespace shardroof::link {
namespace {

constexpr int kPingTag = 7101;
constexpr int kPongTag = 7102;
constexpr int kResultTag = 7103;

// Message bytes that are neither zero nor the same on both sides.
void fill_pattern(std::vector<unsigned char>& buf, int rank) {
  for (std::size_t i = 0; i < buf.size(); ++i)
    buf[i] = static_cast<unsigned char>((i * 131 + static_cast<std::size_t>(rank) * 17 + 1) & 0xff);
}

// Runs the plan's pattern on the pair's two ranks (local rank 0 is src):
// ping-pong (src sends, dst echoes; one-way = round trip / 2) or bidir
// (both send to each other at once; one-way = the exchange's time, each
// direction carrying the message). `wrong` counts, after timing, the echoed
// bytes src got back wrong (ping-pong) or the peer's bytes either rank got
// wrong (bidir), the same on both ranks.
std::vector<SizeTime> ping_pong(MPI_Comm pair_comm, const LinkPlan& plan, long long& wrong) {
  int me = 0;
  SHARDROOF_MPI_CHECK(MPI_Comm_rank(pair_comm, &me));
  const int peer = 1 - me;
  const bool bidir = plan.pattern == Pattern::Bidir;
  const std::uint64_t max_bytes = plan.sizes.empty() ? 0 : plan.sizes.back();
  // The buffers the collectives and the ring probe (shift, ring) use: host
  // memory with transparent huge pages advised (collectives/memory.h), so
  // every pattern's W is of the same memory; with 4 KiB pages a
  // single-copy shared-memory transport copies about 3.5x slower.
  coll::HostAllocation send_buffer(max_bytes + 1);
  coll::HostAllocation recv_buffer(max_bytes + 1);
  auto* const send = static_cast<unsigned char*>(send_buffer.data());
  auto* const recv = static_cast<unsigned char*>(recv_buffer.data());
  std::vector<unsigned char> mine(max_bytes);
  std::vector<unsigned char> expected(max_bytes);  // what recv holds after an iteration
  fill_pattern(mine, me);
  if (bidir)
    fill_pattern(expected, peer);
  else
    expected = mine;
  std::copy(mine.begin(), mine.end(), send);
  std::memset(recv, 0, max_bytes);
  const bool checks_here = plan.check && (bidir || me == 0);
  long long wrong_here = 0;

  std::vector<SizeTime> out;
  HostClock clock;
  for (const std::uint64_t bytes : plan.sizes) {
    // The size names the step in a watchdog message, as coll's sizes do.
    WatchdogScope size_scope(format_bytes(bytes));
    const int count = static_cast<int>(bytes);
    // src sends and waits for the echo; dst receives and echoes what it got.
    const IterationFn round_trip = [&](int) {
      if (me == 0) {
        SHARDROOF_MPI_CHECK(MPI_Send(send, count, MPI_BYTE, peer, kPingTag, pair_comm));
        SHARDROOF_MPI_CHECK(MPI_Recv(recv, count, MPI_BYTE, peer, kPongTag, pair_comm, MPI_STATUS_IGNORE));
      } else {
        SHARDROOF_MPI_CHECK(MPI_Recv(recv, count, MPI_BYTE, peer, kPingTag, pair_comm, MPI_STATUS_IGNORE));
        SHARDROOF_MPI_CHECK(MPI_Send(recv, count, MPI_BYTE, peer, kPongTag, pair_comm));
      }
    };
    // Both ranks send their message and receive the peer's at once.
    const IterationFn exchange = [&](int) {
      MPI_Request requests[2];
      SHARDROOF_MPI_CHECK(MPI_Irecv(recv, count, MPI_BYTE, peer, kPingTag, pair_comm, &requests[0]));
      SHARDROOF_MPI_CHECK(MPI_Isend(send, count, MPI_BYTE, peer, kPingTag, pair_comm, &requests[1]));
      SHARDROOF_MPI_CHECK(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE));
    };
    // Clear the landing buffer outside the timed region so the check after
    // timing sees this size's message, not an earlier one.
    const IterationFn clear = [&](int) {
      if (checks_here) std::memset(recv, 0, bytes);
    };
    const TimeStats t = measure(pair_comm, plan.timing, clock, bidir ? exchange : round_trip, clear);
    out.push_back({bytes, bidir ? t : scaled(t, 0.5)});
    if (checks_here && plan.timing.iters + plan.timing.warmup > 0) {
      for (std::uint64_t i = 0; i < bytes; ++i) wrong_here += expected[i] != recv[i];
    }
  }
  wrong = -1;
  if (plan.check) SHARDROOF_MPI_CHECK(MPI_Allreduce(&wrong_here, &wrong, 1, MPI_LONG_LONG, MPI_SUM, pair_comm));
  return out;
}

// Receives the pair's result from its src, sleeping between polls. Ranks
// outside the measured pair would otherwise spin in MPI's progress loop and
// take CPU time from the pair's transport (TCP stacks, shared-memory copies)
// on a shared host. While they wait they mark watchdog progress: a pair may
// rightly take longer than --timeout as a whole, and it is watched, step by
// step, by its own two ranks, whose watchdogs end the job if it stops.
void sleeping_receive(std::vector<double>& packed, int src, MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  SHARDROOF_MPI_CHECK(MPI_Irecv(packed.data(), static_cast<int>(packed.size()), MPI_DOUBLE, src, kResultTag, comm,
                                &request));
  int done = 0;
  auto pause = std::chrono::microseconds(50);
  for (;;) {
    SHARDROOF_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (done) return;
    process_watchdog().progress();
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(2000));
  }
}

}  // namespace

std::vector<PairMeasurement> measure_pairs(MPI_Comm comm, const LinkPlan& plan, const PairDoneFn& on_pair_done) {
  int rank = 0, nranks = 1;
  SHARDROOF_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  SHARDROOF_MPI_CHECK(MPI_Comm_size(comm, &nranks));
  MPI_Group world_group = MPI_GROUP_NULL;
  SHARDROOF_MPI_CHECK(MPI_Comm_group(comm, &world_group));

  const std::size_t nsizes = plan.sizes.size();
  std::vector<PairMeasurement> all;
  for (const RankPair& pair : plan.pairs) {
    // Each pair is a watched step on every rank, so a stuck pair is named.
    WatchdogScope watched(fmt::format("pair {}-{}", pair.src, pair.dst));
    // The result src hands out (link/packed_pair.h).
    std::vector<double> packed(packed_pair_length(nsizes), 0.0);
    if (rank == pair.src || rank == pair.dst) {
      const int members[2] = {pair.src, pair.dst};
      MPI_Group pair_group = MPI_GROUP_NULL;
      SHARDROOF_MPI_CHECK(MPI_Group_incl(world_group, 2, members, &pair_group));
      CommHandle pair_comm;
      // Collective over the pair only: the other ranks are not involved.
      const int rc = MPI_Comm_create_group(comm, pair_group, kPingTag, pair_comm.out());
      MPI_Group_free(&pair_group);
      SHARDROOF_MPI_CHECK(rc);
      long long wrong = -1;
      std::vector<TimeStats> one_way;
      for (const auto& t : ping_pong(pair_comm.get(), plan, wrong)) one_way.push_back(t.one_way);
      pack_pair(one_way, wrong, packed.data());
    }
    // src hands the result to every other rank once the pair is finished,
    // so no rank starts the next pair before this one is done (each rank
    // takes the pairs in the same order, in it or waiting for its result).
    if (rank == pair.src) {
      for (int r = 0; r < nranks; ++r)
        if (r != rank)
          SHARDROOF_MPI_CHECK(MPI_Send(packed.data(), static_cast<int>(packed.size()), MPI_DOUBLE, r, kResultTag, comm));
    } else {
      sleeping_receive(packed, pair.src, comm);
    }
    all.push_back(unpack_pair(packed.data(), plan.sizes, pair));
    if (on_pair_done && !on_pair_done(all.back())) break;
  }
  MPI_Group_free(&world_group);
  return all;
}

}  // namespace shardroof::link
