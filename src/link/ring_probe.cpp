#include "link/ring_probe.h"

#include <algorithm>
#include <cstddef>

#include "util/mpi_session.h"

namespace shardroof::link {
namespace {

// A byte pattern that differs between ranks and along the message.
unsigned char pattern_byte(std::size_t i, int rank) {
  return static_cast<unsigned char>((i * 131 + static_cast<std::size_t>(rank) * 29 + 7) & 0xff);
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
  const int rank = transport.rank();
  const int n = transport.size();
  const int right = (rank + 1) % n;
  const int left = (rank + n - 1) % n;
  const std::uint64_t max_bytes = plan.sizes.empty() ? 0 : *std::max_element(plan.sizes.begin(), plan.sizes.end());

  // Everything is made before anything is timed.
  auto send = memory.allocate(max_bytes + 1);
  auto recv = memory.allocate(max_bytes + 1);
  {
    std::vector<unsigned char> host(max_bytes + 1);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = pattern_byte(i, rank);
    memory.copy(send->data(), host.data(), max_bytes);
    memory.synchronize();
  }

  std::vector<IterationFn> ops;
  for (const std::uint64_t bytes : plan.sizes) {
    ops.push_back([&, bytes](int) {
      auto r = transport.irecv(recv->data(), bytes, left, plan.tag);
      auto s = transport.isend(send->data(), bytes, right, plan.tag);
      r->wait();
      s->wait();
      memory.synchronize();
    });
  }
  HostClock clock;
  RingProbeResult out;
  out.bytes = plan.sizes;
  out.step_time = measure_interleaved(comm, plan.timing, clock, ops);

  // The last message of the last iteration left the left neighbour's bytes
  // at the start of recv.
  long long wrong = 0;
  const std::uint64_t last = plan.sizes.empty() ? 0 : plan.sizes.back();
  if (last > 0 && plan.timing.warmup + plan.timing.iters > 0) {
    std::vector<unsigned char> host(last);
    memory.copy(host.data(), recv->data(), last);
    memory.synchronize();
    for (std::size_t i = 0; i < host.size(); ++i) wrong += host[i] != pattern_byte(i, left);
  }
  out.wrong = sum_over_ranks(comm, wrong);

  std::vector<double> seconds;
  for (const auto& t : out.step_time) seconds.push_back(t.median);
  out.fit = fit_alpha_beta(out.bytes, seconds);
  return out;
}

}  // namespace shardroof::link
