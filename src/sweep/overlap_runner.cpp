// sweep --overlap at one point: T_math, T_comm, the plain step, the
// interference and every chunked step, each timed in the same rounds.
//
// A chunked step and the plain step it is judged against were once timed
// seconds apart, on a machine whose steps move by more than 10% from one
// measurement to the next: a "hidden" share above 100% (which no pipeline
// allows) and predictions off by the machine's drift. Here every iteration
// runs every operation once, each after its own barrier, in a balanced
// order (timing/timing.h, TurnOrder::Balanced: each first equally often,
// each after every other equally often), so a change of the machine's state
// reaches them all alike: the prediction's inputs (T_math, T_comm, each
// chunk's GEMM and collective alone, each chunk's collective beside busy
// cores, the interference) and the steps it
// predicts come from the same rounds.
#include <fmt/format.h>


#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <stop_token>
#include <thread>
#include <vector>

#include "collectives/blocks.h"
#include "collectives/mpi_transport.h"
#include "collectives/trace.h"
#include "sweep/overlap_model.h"
#include "sweep/runner.h"
#include "timing/cpu_usage.h"
#include "timing/stats.h"
#include "util/error.h"

namespace shardroof::sweep {
namespace {


// Per-iteration durations kept on each rank (`rows` of `width` values, the
// first `filled` of them written): the slowest rank's per iteration and
// column, then each column's median over the iterations.
std::vector<double> median_of_slowest(MPI_Comm comm, const std::vector<std::vector<double>>& rows, std::size_t filled,
                                      std::size_t width) {
  std::vector<double> local(filled * width), all(filled * width);
  for (std::size_t i = 0; i < filled; ++i)
    std::copy(rows[i].begin(), rows[i].begin() + static_cast<std::ptrdiff_t>(width),
              local.begin() + static_cast<std::ptrdiff_t>(i * width));
  if (!local.empty())
    SHARDROOF_MPI_CHECK(
        MPI_Allreduce(local.data(), all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_MAX, comm));
  std::vector<double> out(width, 0.0);
  for (std::size_t k = 0; k < width; ++k) {
    std::vector<double> column;
    for (std::size_t i = 0; i < filled; ++i) column.push_back(all[i * width + k]);
    out[k] = median_of(std::move(column));
  }
  return out;
}

// A ring of per-iteration rows: warm-up iterations are overwritten.
struct SlotRing {
  std::vector<std::vector<double>> rows;
  std::size_t calls = 0;
  SlotRing(std::size_t slots, std::size_t width) : rows(slots, std::vector<double>(width, 0.0)) {}
  std::vector<double>& next() { return rows[calls++ % rows.size()]; }
  std::size_t filled() const { return std::min(calls, rows.size()); }
};

// The CPUs of a node (its ranks' affinity masks together) and the ranks on
// it, for the node whose ranks have the fewest CPUs each. Collective on
// `comm`.
using OverlapNodeCpus = coll::NodeCpus;
OverlapNodeCpus overlap_node_cpus(MPI_Comm comm) {
  const coll::NodeCpus node = coll::node_cpus(comm);
  int size = 1;
  SHARDROOF_MPI_CHECK(MPI_Comm_size(comm, &size));
  const int here[2] = {node.cpus, node.ranks};
  std::vector<int> every(2 * static_cast<std::size_t>(size));
  SHARDROOF_MPI_CHECK(MPI_Allgather(here, 2, MPI_INT, every.data(), 2, MPI_INT, comm));
  OverlapNodeCpus out = node;
  for (std::size_t i = 0; i < every.size(); i += 2)
    if (static_cast<double>(every[i]) / every[i + 1] < static_cast<double>(out.cpus) / out.ranks)
      out = {every[i], every[i + 1]};
  return out;
}

// Each rank's CPU over its timed alone-runs (rows: wall, thread, process,
// node busy, node softirq; the node's NaN where unknown or read over less
// than kMinNodeSpanS) as the record's shares, the largest over ranks.
TransportCpu transport_cpu_of(MPI_Comm comm, const std::vector<std::vector<double>>& rows, std::size_t filled,
                              const OverlapNodeCpus& node, int gemm_threads) {
  double sum[5] = {0, 0, 0, 0, 0};
  bool node_known = filled > 0;
  for (std::size_t i = 0; i < filled; ++i) {
    for (std::size_t k = 0; k < 5; ++k) sum[k] += rows[i][k];
    node_known = node_known && !std::isnan(rows[i][3]);
  }
  const double wall = sum[0];
  // Spans too short for /proc/stat's 10 ms unit: the process's share stands alone.
  node_known = node_known && wall >= kMinNodeSpanS;
  double local[5] = {wall, 0, 0, -1, -1};
  if (wall > 0) {
    local[1] = sum[1] / wall;
    local[2] = sum[2] / wall;
    if (node_known) {
      local[3] = sum[3] / wall / node.ranks;
      local[4] = sum[4] / wall / node.ranks;
    }
  }
  double all[5];
  SHARDROOF_MPI_CHECK(MPI_Allreduce(local, all, 5, MPI_DOUBLE, MPI_MAX, comm));
  TransportCpu t;
  t.wall_s = all[0];
  t.thread = all[1];
  t.process = all[2];
  t.node = all[3];
  t.softirq = all[4];
  t.node_cpus = node.cpus;
  t.node_ranks = node.ranks;
  t.gemm_threads = gemm_threads;
  return t;
}

// One K's chunked step: made before anything is timed.
struct ChunkedStep {
  OverlapRun run;
  std::vector<Chunk> chunks;
  std::unique_ptr<ComputeBackend::PreparedGemmChunks> gemm;
  std::unique_ptr<coll::Collective> collective;
  coll::Tracer* comm_tracer = nullptr;
  // The step's stamps (SweepRunner::summarize_stamps), and where the
  // untimed runs after the rounds write theirs.
  std::vector<std::vector<model::ChunkSpans>> stamps;
  std::vector<model::ChunkSpans> scratch;
  std::size_t calls = 0;
  model::ChunkSpans* spans = nullptr;
  SlotRing gemm_alone, comm_alone, comm_busy;
  SlotRing cpu_alone;  // the CPU of each alone-run of the collectives (transport_cpu_of)
  std::unique_ptr<ChunkWorker> thread;
  // On the CPU: the thread that runs the chunks' collectives beside busy
  // cores, and the row it writes.
  std::unique_ptr<ChunkWorker> busy_thread;
  std::vector<double>* busy_row = nullptr;
  ChunkedStep(std::size_t slots, std::size_t K)
      : scratch(K), gemm_alone(slots, K), comm_alone(slots, K), comm_busy(slots, K), cpu_alone(slots, 5) {}
};

// Keeps the calling thread and `threads` - 1 more spinning until `worker`
// has run everything handed to it: the cores a GEMM of that many threads
// holds, as the scheduler sees them (never idle, never yielding), without
// its arithmetic or memory traffic. Each helper spins until its jthread
// asks it to stop, on destruction: on return, or when starting another
// throws.
void spin_until_finished(ChunkWorker& worker, int threads) {
  std::vector<std::jthread> more;
  for (int i = 1; i < threads; ++i)
    more.emplace_back([](std::stop_token stop) {
      while (!stop.stop_requested()) {
      }
    });
  while (!worker.finished()) {
  }
}

}  // namespace

void SweepRunner::measure_overlapped(const PointContext& c, PointRecord& rec) {
  auto& mem = backend_.memory();
  const std::size_t es = coll::size_of(plan_.type);
  const std::size_t B = plan_.B, F = plan_.F, BF = B * F;
  const TimingPlan& timing = c.timing;
  const std::size_t slots = static_cast<std::size_t>(std::max(timing.iters, 1));
  auto* partial_bytes = static_cast<std::byte*>(c.partial);
  auto* z_bytes = static_cast<std::byte*>(c.z);

  // The interference (host work only): the unchunked GEMM and a collective
  // of the same size started together, the collective on a thread of its
  // own and on buffers of its own (the GEMM writes the partial sum as the
  // collective would read it). On a GPU the unchunked GEMM and the
  // collective share one stream and would only serialize, so there the
  // model assumes none.
  const bool cpu = plan_.backend == Backend::Cpu;
  const OverlapNodeCpus node_cpus = cpu ? overlap_node_cpus(comm_) : OverlapNodeCpus{};
  std::unique_ptr<coll::Allocation> other_in, other_out;
  std::unique_ptr<coll::Collective> other;
  SlotRing beside_d(slots, 2);  // the GEMM's and the collective's durations
  std::vector<double>* beside_row = nullptr;
  std::unique_ptr<ChunkWorker> beside;
  if (cpu) {
    other_in = mem.allocate(BF * es + 1);
    other_out = mem.allocate(c.out_count * es + 1);
    mem.copy(other_in->data(), c.partial, BF * es);
    mem.synchronize();
    other = plan_.overlap.sleeping_waits ? setup_.make_beside_compute(plan_.kind, plan_.impl, plan_.ring)
                                         : setup_.make(plan_.kind, plan_.impl, plan_.ring);
    beside = std::make_unique<ChunkWorker>([&] { backend_.enter_thread(); },
                                           [&](std::size_t) {
                                             const double t0 = coll::Tracer::now();
                                             other->run(other_in->data(), other_out->data(), BF, plan_.type,
                                                        coll::ReduceOp::Sum);
                                             mem.synchronize();
                                             (*beside_row)[1] = coll::Tracer::now() - t0;
                                           });
  }
  const auto run_beside = [&] {
    beside_row = &beside_d.next();
    beside->submit(0);
    const double t0 = coll::Tracer::now();
    c.gemm.run();
    mem.synchronize();
    (*beside_row)[0] = coll::Tracer::now() - t0;
    beside->wait();
  };
  const auto concurrent_of = [&](const SlotRing& ring) {
    const std::vector<double> d = median_of_slowest(comm_, ring.rows, ring.filled(), 2);
    return ConcurrentStep{d[0], d[1]};
  };

  // A first look at the point (T_math, T_comm): auto chooses K from it
  // (with the interference and one chunk's GEMM at each K), and graded
  // chunks grow by T_comm/T_math. The rounds then measure it all again
  // beside the chunked steps.
  std::vector<int> Ks = plan_.overlap.chunks;
  double growth = 1;
  if (plan_.overlap.automatic || plan_.overlap.graded) {
    const TimingPlan look = plan_.overlap.automatic ? timing : TimingPlan{std::min(timing.warmup, 1), std::min(timing.iters, 3)};
    const TimeStats t_math = shardroof::measure(comm_, look, c.clock, [&](int) { c.gemm.run(); });
    const TimeStats t_comm = shardroof::measure(comm_, look, c.clock, [&](int) { c.reduce(); });
    // At most x2 from one chunk to the next: at 2 the first chunk holds
    // 1/(2^K - 1) of the rows (1/15 at K = 4), so the exposed GEMM is
    // already small, and a steeper ratio (T_comm 17x T_math on a small
    // shape) leaves chunks of a row or two that carry nothing but their
    // per-chunk costs (a latency and a hand-over each).
    if (plan_.overlap.graded && t_math.median > 0 && t_comm.median > 0)
      growth = std::clamp(t_comm.median / t_math.median, 0.5, 2.0);
    if (plan_.overlap.automatic) {
      model::Interference interference;
      if (cpu) {
        shardroof::measure(comm_, timing, c.clock, [&](int) { run_beside(); });
        const ConcurrentStep s = concurrent_of(beside_d);
        interference = model::interference_from(t_math.median, t_comm.median, s.gemm_s, s.comm_s);
        beside_d = SlotRing(slots, 2);
      }
      rec.overlap_choice = choose_chunks_at(B, F, c.shard.size, c.x, c.y, c.partial, timing, t_math.median,
                                            t_comm.median, interference);
      Ks.clear();
      if (rec.overlap_choice->chosen > 1) Ks.push_back(rec.overlap_choice->chosen);
    }
  }

  // Every K's chunked step, made before anything is timed.
  std::vector<std::unique_ptr<ChunkedStep>> steps;
  for (const int K : Ks) {
    auto st = std::make_unique<ChunkedStep>(slots, static_cast<std::size_t>(K));
    ChunkedStep& s = *st;
    s.run.chunks = K;
    s.run.growth = growth;
    s.chunks = plan_chunks(B, F, ranks_, rank_, plan_.kind, K, growth);
    if (c.edit_chunks) c.edit_chunks(s.chunks);
    for (const Chunk& ch : s.chunks) s.run.elements.push_back(static_cast<double>(ch.count));
    std::vector<std::vector<ComputeBackend::GemmBlock>> blocks;
    for (const Chunk& ch : s.chunks) {
      auto& mine = blocks.emplace_back();
      for (const ChunkBlock& b : ch.blocks) mine.push_back({b.row, b.rows, b.col, b.cols, partial_bytes + b.dst * es});
    }
    s.gemm = backend_.prepare_gemm_chunks(B, F, c.shard.size, c.x, c.y, std::move(blocks), plan_.type);
    // The chunks' collective runs on the communication thread: an instance
    // of its own, whose spans go to that thread's track (traced or not, so
    // tracing times the same code).
    coll::CollectiveOptions comm_ring = plan_.ring;
    comm_ring.tracer = trace::tracer_of(trace_, trace::Track::Comm);
    s.comm_tracer = comm_ring.tracer;
    s.collective = plan_.overlap.sleeping_waits ? setup_.make_beside_compute(plan_.kind, plan_.impl, comm_ring)
                                                : setup_.make(plan_.kind, plan_.impl, comm_ring);
    s.stamps.assign(slots, std::vector<model::ChunkSpans>(s.chunks.size()));
    s.spans = s.stamps.front().data();
    s.thread = std::make_unique<ChunkWorker>([&] { backend_.enter_thread(); },
                                             [&, st = &s](std::size_t k) {
                                               {
                                                 coll::TraceSpan span(st->comm_tracer, "wait gemm", "wait",
                                                                      {{"chunk", k}});
                                                 st->gemm->wait_for(k);
                                               }
                                               st->spans[k].comm_start = c.aligned.now();
                                               {
                                                 coll::TraceSpan span(st->comm_tracer, c.kind_name, "collective",
                                                                      {{"bytes", st->chunks[k].count * es},
                                                                       {"chunk", k}});
                                                 const Chunk& ch = st->chunks[k];
                                                 st->collective->run(partial_bytes + ch.send * es,
                                                                     z_bytes + ch.recv * es, ch.count, plan_.type,
                                                                     coll::ReduceOp::Sum);
                                               }
                                               st->spans[k].comm_end = c.aligned.now();
                                             });
    if (cpu)
      s.busy_thread = std::make_unique<ChunkWorker>(
          [&] { backend_.enter_thread(); },
          [&, st = &s](std::size_t k) {
            // On the second buffers: the spinning cores write nothing, but
            // the runs stay off the buffers the step and its check use.
            const Chunk& ch = st->chunks[k];
            const double t0 = coll::Tracer::now();
            st->collective->run(static_cast<std::byte*>(other_in->data()) + ch.send * es,
                                static_cast<std::byte*>(other_out->data()) + ch.recv * es, ch.count, plan_.type,
                                coll::ReduceOp::Sum);
            mem.synchronize();
            (*st->busy_row)[k] = coll::Tracer::now() - t0;
          });
    steps.push_back(std::move(st));
  }
  const auto overlapped_step = [&](ChunkedStep& s) {
    s.gemm->begin();
    for (std::size_t k = 0; k < s.chunks.size(); ++k) {
      {
        coll::TraceSpan span(c.tracer, "gemm", "compute",
                             {{"chunk", k}, {"elements", s.chunks[k].count}, {"k", c.shard.size}});
        // Chunk k's GEMM (queued on its own stream on a GPU: there the
        // stamps hold the queueing, and the collective's start, after its
        // wait, marks the GEMM's end).
        s.spans[k].gemm_start = c.aligned.now();
        s.gemm->run(k);
        s.spans[k].gemm_end = c.aligned.now();
      }
      s.thread->submit(k);  // its collective, while chunk k + 1 computes
    }
    coll::TraceSpan span(c.tracer, "wait comm", "wait", {{"chunks", s.chunks.size()}});
    s.thread->wait();
  };

  // The operations of a round, each with the trace region its last timed
  // iteration is recorded in (none: never recorded).
  std::vector<IterationFn> ops;
  std::vector<std::optional<trace::Region>> regions;
  const auto region = [&](const char* what, int chunks) {
    return trace::Region{what, std::string(coll::to_string(plan_.kind)), setup_.describe(plan_.impl), BF * es, c.D,
                         c.shard.size, -1, timing.iters - 1, timing.iters, chunks};
  };
  const auto iteration_span = [&](std::function<void()> body) {
    return [&, body = std::move(body)](int) {
      coll::TraceSpan iteration(c.tracer, "iteration", "iteration");
      body();
    };
  };
  ops.push_back(iteration_span(c.run_gemm));
  regions.push_back(region("T_math", 0));
  ops.push_back(iteration_span(c.reduce));
  regions.push_back(region("T_comm", 0));
  ops.push_back(iteration_span([&] {
    c.run_gemm();
    c.reduce();
  }));
  regions.push_back(region("T_step", 0));
  if (cpu) {
    ops.push_back([&](int) { run_beside(); });
    regions.emplace_back();
  }
  for (auto& st : steps) {
    ChunkedStep* s = st.get();
    ops.push_back(iteration_span([&, s] {
      s->spans = s->stamps[s->calls++ % s->stamps.size()].data();
      overlapped_step(*s);
    }));
    regions.push_back(region("T_overlap", s->run.chunks));
    // Each chunk's GEMM alone at its own shape, one after the other.
    ops.push_back([&, s](int) {
      std::vector<double>& row = s->gemm_alone.next();
      for (std::size_t k = 0; k < s->chunks.size(); ++k) {
        const double t0 = coll::Tracer::now();
        s->gemm->begin();
        s->gemm->run(k);
        s->gemm->wait_for(k);
        row[k] = coll::Tracer::now() - t0;
      }
    });
    regions.emplace_back();
    // Each chunk's collective alone, one after the other, and (on the
    // CPU) the CPU they took: the transport's share in the overlap model.
    ops.push_back([&, s](int) {
      std::vector<double>& row = s->comm_alone.next();
      std::optional<CpuSpan> span;
      if (cpu) span.emplace();
      for (std::size_t k = 0; k < s->chunks.size(); ++k) {
        const Chunk& ch = s->chunks[k];
        const double t0 = coll::Tracer::now();
        s->collective->run(partial_bytes + ch.send * es, z_bytes + ch.recv * es, ch.count, plan_.type,
                           coll::ReduceOp::Sum);
        mem.synchronize();
        row[k] = coll::Tracer::now() - t0;
      }
      if (span) {
        const CpuSpan::Result r = span->stop();
        std::vector<double>& used = s->cpu_alone.next();
        const double unknown = std::numeric_limits<double>::quiet_NaN();
        used = {r.wall_s, r.thread_s, r.process_s, r.node_busy_s.value_or(unknown),
                r.node_softirq_s.value_or(unknown)};
      }
    });
    regions.emplace_back();
    // Each chunk's collective beside busy cores: on the communication
    // thread, as in the step, while every rank's GEMM threads spin. A busy
    // core delays what the collective needs the CPU for at each of its
    // steps (the rank's wake-up, the kernel's packet path): on a 2-vCPU VM
    // a 4 KiB 2-rank ring AllReduce took 8 ms beside spinning cores and
    // 0.33 ms alone (docs/overlap.md). The alone-runs cannot show that, and
    // the step's own stamps would make the prediction read its answer.
    if (cpu) {
      ops.push_back([&, s](int) {
        s->busy_row = &s->comm_busy.next();
        for (std::size_t k = 0; k < s->chunks.size(); ++k) s->busy_thread->submit(k);
        spin_until_finished(*s->busy_thread, plan_.threads);
        s->busy_thread->wait();
      });
      regions.emplace_back();
    }
  }
  std::vector<IterationFn> prepares;
  for (std::size_t k = 0; k < ops.size(); ++k)
    prepares.push_back([&, k](int iteration) {
      if (!trace_) return;
      const bool traced = regions[k] && iteration == timing.iters - 1;
      if (traced) trace_->begin_region(*regions[k]);
      trace_->set_recording(traced);
    });
  std::vector<TimeStats> t =
      measure_interleaved(comm_, timing, c.clock, ops, prepares, TurnOrder::Balanced, &c.aligned);
  if (trace_) {
    trace_->set_recording(false);
    // `auto` picks by size: name what it ran.
    if (plan_.impl == coll::Algorithm::Auto) trace_->current_region().algorithm = setup_.describe(plan_.impl);
  }
  rec.t_math = std::move(t[0]);
  rec.t_comm = std::move(t[1]);
  rec.t_step = std::move(t[2]);
  std::size_t next = 3;
  if (cpu) {
    rec.concurrent = concurrent_of(beside_d);
    ++next;
  }
  for (auto& st : steps) {
    ChunkedStep& s = *st;
    const std::size_t K = s.chunks.size();
    s.run.t_overlap = std::move(t[next]);
    next += cpu ? 4 : 3;
    s.run.gemm_alone_s = median_of_slowest(comm_, s.gemm_alone.rows, s.gemm_alone.filled(), K);
    s.run.comm_alone_s = median_of_slowest(comm_, s.comm_alone.rows, s.comm_alone.filled(), K);
    summarize_stamps(s.stamps, std::min(s.calls, s.stamps.size()), s.run);
    if (cpu) {
      s.run.comm_busy_s = median_of_slowest(comm_, s.comm_busy.rows, s.comm_busy.filled(), K);
      s.run.transport_cpu = transport_cpu_of(comm_, s.cpu_alone.rows, s.cpu_alone.filled(), node_cpus, plan_.threads);
    }
  }

  // Checked outside the rounds: the plain step once more, then each chunked
  // step from a poisoned partial sum and Z (NaN bytes), so a chunk that the
  // step never writes, or writes from stale data, fails the check instead of
  // passing on what the step before left. The last of them leaves Z for
  // the caller.
  c.run_gemm();
  c.reduce();
  if (plan_.check) rec.check = c.check_z();
  const std::vector<std::byte> nan_bytes(BF * es, std::byte{0xFF});
  for (auto& st : steps) {
    ChunkedStep& s = *st;
    mem.copy(c.partial, nan_bytes.data(), BF * es);
    mem.copy(c.z, nan_bytes.data(), c.out_count * es);
    mem.synchronize();
    s.spans = s.scratch.data();
    overlapped_step(s);
    if (plan_.check) s.run.check = c.check_z();
    rec.overlap_runs.push_back(std::move(s.run));
  }
  // T_overlap is the first K's; the check holds every K's (a wrong product
  // at any K fails the point).
  if (!rec.overlap_runs.empty()) rec.t_overlap = rec.overlap_runs.front().t_overlap;
  for (const OverlapRun& run : rec.overlap_runs) {
    if (!run.check.checked) continue;
    if (!rec.overlap_check.checked) {
      rec.overlap_check = run.check;
      continue;
    }
    rec.overlap_check.wrong += run.check.wrong;
    rec.overlap_check.tested += run.check.tested;
    rec.overlap_check.worst_ratio = std::max(rec.overlap_check.worst_ratio, run.check.worst_ratio);
  }
}

}  // namespace shardroof::sweep
