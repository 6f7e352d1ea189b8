#include "link/ring_probe.h"

#include "collectives/wait.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>

#include "collectives/mpi_transport.h"
#include "link/packed_pair.h"
#include "link/patterns.h"
#include "util/mpi_session.h"
#include "util/watchdog.h"

namespace shardroof::link {
namespace {

// The send completions each sender hands its receiver after timing.
constexpr int kTransferTag = 0x5301;

// A byte pattern that differs between ranks and along the message.
unsigned char pattern_byte(std::size_t i, int rank) {
  return static_cast<unsigned char>((i * 131 + static_cast<std::size_t>(rank) * 29 + 7) & 0xff);
}

// Every transfer's time, on every rank: each sender hands its send
// completions to its receiver, which takes per iteration the later of them
// and its own receive completion (the max over the two ranks taking part)
// and summarizes them; the summaries and what each receiver got wrong are
// gathered. Outside timed regions.
std::vector<PairMeasurement> gather_transfers(MPI_Comm comm, const RingProbePlan& plan, int left,
                                              const std::vector<double>& send_done,
                                              const std::vector<double>& recv_done, long long wrong) {
  int rank = 0, n = 1;
  SHARDROOF_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  SHARDROOF_MPI_CHECK(MPI_Comm_size(comm, &n));
  const int right = (rank + (rank - left + n) % n) % n;
  const std::size_t nsizes = plan.sizes.size();
  const std::size_t iters = nsizes > 0 ? send_done.size() / nsizes : 0;
  std::vector<double> left_send(send_done.size());
  SHARDROOF_MPI_CHECK(MPI_Sendrecv(send_done.data(), static_cast<int>(send_done.size()), MPI_DOUBLE, right,
                                   kTransferTag, left_send.data(), static_cast<int>(left_send.size()), MPI_DOUBLE,
                                   left, kTransferTag, comm, MPI_STATUS_IGNORE));
  // Packed per receiver (link/packed_pair.h).
  const std::size_t record = packed_pair_length(nsizes);
  std::vector<TimeStats> per_size(nsizes);
  for (std::size_t k = 0; k < nsizes && iters > 0; ++k) {
    std::vector<double> samples(iters);
    for (std::size_t i = 0; i < iters; ++i)
      samples[i] = std::max(left_send[k * iters + i], recv_done[k * iters + i]);
    per_size[k] = shardroof::summarize(std::move(samples));  // not link::summarize (a unity build sees both)
  }
  std::vector<double> mine(record);
  pack_pair(per_size, wrong, mine.data());
  std::vector<double> all(record * static_cast<std::size_t>(n));
  SHARDROOF_MPI_CHECK(MPI_Allgather(mine.data(), static_cast<int>(record), MPI_DOUBLE, all.data(),
                                    static_cast<int>(record), MPI_DOUBLE, comm));
  const int shift = (rank - left + n) % n;
  std::vector<PairMeasurement> out;
  for (int receiver = 0; receiver < n; ++receiver)
    out.push_back(unpack_pair(all.data() + record * static_cast<std::size_t>(receiver), plan.sizes,
                              {(receiver + n - shift) % n, receiver}, shift));
  // Ordered by sender.
  std::sort(out.begin(), out.end(),
            [](const PairMeasurement& a, const PairMeasurement& b) { return a.pair.src < b.pair.src; });
  return out;
}

}  // namespace

std::vector<std::uint64_t> ring_probe_sizes(std::uint64_t block_bytes, std::size_t element_bytes) {
  const std::uint64_t es = std::max<std::size_t>(element_bytes, 1);
  std::vector<std::uint64_t> out{es};
  for (const std::uint64_t div : {4, 2, 1}) {
    const std::uint64_t s = std::max(block_bytes / div / es * es, es);
    if (s > out.back()) out.push_back(s);
  }
  return out;
}

RingProbeResult measure_ring_probe(coll::Transport& transport, coll::MemoryOps& memory, MPI_Comm comm,
                                   const RingProbePlan& plan) {
  return measure_ring_probe(transport, memory, comm, comm, plan);
}

RingProbeResult measure_ring_probe(coll::Transport& transport, coll::MemoryOps& memory, MPI_Comm comm,
                                   MPI_Comm group, const RingProbePlan& plan) {
  const int rank = transport.rank();
  const int n = transport.size();
  const int shift = n > 1 ? plan.shift % n : 0;
  const int right = (rank + shift) % n;
  const int left = (rank + n - shift) % n;
  const std::uint64_t max_bytes = plan.sizes.empty() ? 0 : *std::max_element(plan.sizes.begin(), plan.sizes.end());
  const std::size_t nsizes = plan.sizes.size();
  const std::size_t iters = static_cast<std::size_t>(std::max(plan.timing.iters, 0));
  const int calls = plan.timing.mode == TimingMode::Batched ? std::max(plan.timing.batch, 1) : 1;

  // Everything is made before anything is timed.
  auto send = memory.allocate(max_bytes + 1);
  auto recv = memory.allocate(max_bytes + 1);
  std::vector<unsigned char> pattern(max_bytes + 1);
  for (std::size_t i = 0; i < pattern.size(); ++i) pattern[i] = pattern_byte(i, rank);
  memory.copy(send->data(), pattern.data(), max_bytes);
  memory.synchronize();
  // [size * iters + iteration]: seconds from the call's start to this
  // rank's send (receive) completing, averaged over a batch's calls.
  std::vector<double> send_done(nsizes * iters, 0.0);
  std::vector<double> recv_done(nsizes * iters, 0.0);

  std::vector<IterationFn> ops;
  for (std::size_t k = 0; k < nsizes; ++k) {
    const std::uint64_t bytes = plan.sizes[k];
    ops.push_back([&, bytes, k](int iteration) {
      HostClock since_start;
      since_start.start();
      auto r = transport.irecv(recv->data(), bytes, left, plan.tag);
      auto s = transport.isend(send->data(), bytes, right, plan.tag);
      // Poll both, so each completion is read when it happens; between
      // polls wait as the collectives do on this transport (collectives/
      // wait.h): with more ranks than cores a spinning rank took the core
      // its peer's TCP progress needed, and a 2-rank exchange over an
      // emulated link ran at half its rate in most iterations.
      const coll::WaitPause pause(transport.wait_policy());
      double t_recv = -1, t_send = -1;
      while (t_recv < 0 || t_send < 0) {
        if (t_recv < 0 && r->test()) t_recv = since_start.stop();
        if (t_send < 0 && s->test()) t_send = since_start.stop();
        if (t_recv < 0 || t_send < 0) pause();
      }
      memory.synchronize();
      if (iteration >= 0) {
        const std::size_t at = k * iters + static_cast<std::size_t>(iteration);
        send_done[at] += t_send / calls;
        recv_done[at] += t_recv / calls;
      }
    });
  }
  std::vector<IterationFn> prepares;
  if (plan.fresh_send)
    for (std::size_t k = 0; k < nsizes; ++k)
      prepares.push_back([&, bytes = plan.sizes[k]](int) {
        memory.copy(send->data(), pattern.data(), bytes);
        memory.synchronize();
      });
  HostClock clock;
  RingProbeResult out;
  out.bytes = plan.sizes;
  out.step_time = measure_interleaved(comm, plan.timing, clock, ops, prepares);

  // The last message of the last iteration left the left neighbour's bytes
  // at the start of recv.
  long long wrong = plan.check ? 0 : -1;
  const std::uint64_t last = plan.sizes.empty() ? 0 : plan.sizes.back();
  if (plan.check && last > 0 && plan.timing.warmup + plan.timing.iters > 0) {
    std::vector<unsigned char> host(last);
    memory.copy(host.data(), recv->data(), last);
    memory.synchronize();
    for (std::size_t i = 0; i < host.size(); ++i) wrong += host[i] != pattern_byte(i, left);
  }
  out.wrong = plan.check ? sum_over_ranks(comm, wrong) : -1;
  out.transfers = gather_transfers(group, plan, left, send_done, recv_done, wrong);

  std::vector<double> seconds;
  for (const auto& t : out.step_time) seconds.push_back(t.median);
  out.fit = fit_alpha_beta(out.bytes, seconds);
  return out;
}

std::vector<RingProbeResult> measure_shifts(MPI_Comm comm, const LinkPlan& plan, const StepDoneFn& on_step_done) {
  int ranks = 1;
  SHARDROOF_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  coll::MpiTransport transport(comm);
  coll::HostMemoryOps memory;
  std::vector<RingProbeResult> out;
  for (const int k : pattern_shifts(plan.pattern, ranks)) {
    // Each step is a watched step on every rank, so a stuck one is named.
    WatchdogScope watched(fmt::format("shift {}", k));
    RingProbePlan step;
    step.sizes = plan.sizes;
    step.timing = plan.timing;
    step.shift = k;
    step.check = plan.check;
    out.push_back(measure_ring_probe(transport, memory, comm, step));
    if (on_step_done && !on_step_done(out.back(), k)) break;
  }
  return out;
}

}  // namespace shardroof::link
