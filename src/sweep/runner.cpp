#include "sweep/runner.h"

#include <algorithm>
#include <vector>

#include "collectives/blocks.h"
#include "collectives/mpi_transport.h"
#include "collectives/trace.h"
#include "sweep/operands.h"
#include "sweep/overlap_model.h"
#include "sweep/sample_floors.h"
#include "trace/clock_sync.h"
#include "sweep/two_level_probe.h"
#include "util/mpi_session.h"

namespace shardroof::sweep {

SweepRunner::SweepRunner(const SweepPlan& plan, ComputeBackend& backend, CommSetup& setup, MPI_Comm comm,
                         trace::Recorder* trace)
    : plan_(plan), backend_(backend), setup_(setup), comm_(comm), trace_(trace) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &ranks_);
}

std::string SweepRunner::timed_gemm_work() const {
  // A zero-size preparation only asks the backend what it would time.
  return backend_.prepare_gemm(0, 0, 0, nullptr, nullptr, nullptr, plan_.type)->timed_work();
}

PointRecord SweepRunner::measure_point(std::uint64_t D, std::vector<std::byte>* z_out, const ChunkEdit& edit_chunks) {
  return measure(D, plan_.timing, z_out, edit_chunks);
}

PointRecord SweepRunner::measure_point(std::uint64_t D, const TimingPlan& timing) {
  return measure(D, timing, nullptr, {});
}

PointRecord SweepRunner::measure(std::uint64_t D, const TimingPlan& timing, std::vector<std::byte>* z_out,
                                 const ChunkEdit& edit_chunks) {
  auto& mem = backend_.memory();
  const std::size_t es = coll::size_of(plan_.type);
  const std::size_t B = plan_.B, F = plan_.F, BF = B * F;
  const Shard shard = shard_of(D, ranks_, rank_);

  // Output of the collective: all of Z (AllReduce) or this rank's block (ReduceScatter).
  const coll::BlockPartition zpart(BF, ranks_);
  const bool scatter = plan_.kind == coll::CollectiveKind::ReduceScatter;
  const std::size_t out_first = scatter ? zpart.offset(rank_) : 0;
  const std::size_t out_count = scatter ? zpart.size(rank_) : BF;

  // Everything is made before anything is timed.
  auto x = mem.allocate(B * shard.size * es + 1);
  auto y = mem.allocate(shard.size * F * es + 1);
  auto partial = mem.allocate(BF * es + 1);
  auto z = mem.allocate(out_count * es + 1);
  // A backend that computes nothing (simulated, its time injected) reads
  // no operands: making them would only cost the simulation's real time.
  if (backend_.computes_values()) {
    std::vector<std::byte> host(std::max(B, F) * shard.size * es + 1);
    fill_x_shard(host.data(), plan_.type, plan_.seed, B, shard);
    mem.copy(x->data(), host.data(), B * shard.size * es);
    fill_y_shard(host.data(), plan_.type, plan_.seed, F, shard);
    mem.copy(y->data(), host.data(), shard.size * F * es);
    mem.synchronize();
  }
  coll::Tracer* const tracer = trace::tracer_of(trace_);
  coll::CollectiveOptions ring = plan_.ring;
  ring.tracer = tracer;
  auto gemm = backend_.prepare_gemm(B, F, shard.size, x->data(), y->data(), partial->data(), plan_.type);
  auto collective = setup_.make(plan_.kind, plan_.impl, ring);
  auto clock = backend_.make_clock();
  // Arrival skews are taken on rank 0's clock, estimated afresh at each
  // point so that clocks drifting apart over a long run do not add up.
  const AlignedClock aligned = trace::aligned_clock(comm_);
  // A span keeps its name as a pointer: to_string views a string literal.
  const char* kind_name = coll::to_string(plan_.kind).data();
  const auto run_gemm = [&] {
    coll::TraceSpan span(tracer, "gemm", "compute", {{"m", B}, {"n", F}, {"k", shard.size}});
    gemm->run();
  };
  const auto reduce = [&] {
    coll::TraceSpan span(tracer, kind_name, "collective", {{"bytes", BF * es}});
    collective->run(partial->data(), z->data(), BF, plan_.type, coll::ReduceOp::Sum);
  };
  // Each measurement is a region of the trace; its last timed iteration is recorded.
  const auto timed = [&](const char* what, int chunks, const auto& body) {
    if (trace_)
      trace_->begin_region({what, std::string(coll::to_string(plan_.kind)), setup_.describe(plan_.impl), BF * es, D,
                            shard.size, -1, timing.iters - 1, timing.iters, chunks});
    const TimeStats t = shardroof::measure(
        comm_, timing, *clock,
        [&](int) {
          coll::TraceSpan iteration(tracer, "iteration", "iteration");
          body();
        },
        trace::record_last_iteration(trace_, timing), &aligned);
    if (trace_) {
      trace_->set_recording(false);
      // `auto` picks by size: name what it ran.
      if (plan_.impl == coll::Algorithm::Auto)
        trace_->current_region().algorithm = collective->algorithm() + "/" + std::string(setup_.transport().name());
    }
    return t;
  };

  PointRecord rec;
  rec.D = D;
  rec.iterations = timing.iters;
  rec.windows = {timing.iters};
  rec.shard_max = coll::BlockPartition(D, ranks_).max_size();
  rec.t_math = timed("T_math", 0, run_gemm);
  rec.t_comm = timed("T_comm", 0, reduce);
  rec.t_step = timed("T_step", 0, [&] {
    run_gemm();
    reduce();
  });
  const double flops = 2.0 * static_cast<double>(B) * static_cast<double>(rec.shard_max) * static_cast<double>(F);
  rec.flops_per_s = rec.t_math.median > 0 ? flops / rec.t_math.median : 0;

  // The distributed product the last timed step left in z, on the host.
  std::vector<std::byte> host;
  const auto fetch_z = [&] {
    host.resize(out_count * es + 1);
    mem.copy(host.data(), z->data(), out_count * es);
    mem.synchronize();
  };
  const auto check_z = [&] {
    fetch_z();
    const LocalCheck local =
        check_product_block(host.data(), plan_.type, plan_.seed, B, D, F, out_first, out_count, ranks_);
    PointCheck out;
    out.checked = true;
    out.wrong = sum_over_ranks(comm_, local.wrong);
    out.tested = sum_over_ranks(comm_, local.tested);
    out.worst_ratio = max_over_ranks(comm_, local.worst_ratio);
    // Ranks holding no output said "none"; take the method another rank used.
    out.method = broadcast_string(comm_, local.method);
    return out;
  };
  if (plan_.check) rec.check = check_z();

  if (plan_.overlap.enabled()) {
    if (plan_.backend == Backend::Cpu) {
      // The interference: the unchunked GEMM and a collective of the same
      // size started together, the collective on the communication thread
      // and on buffers of its own (the GEMM writes the partial sum as the
      // collective would read it). Host work only: on a GPU the unchunked
      // GEMM and the collective share one stream and would only serialize,
      // so there the model assumes none.
      auto other_in = mem.allocate(BF * es + 1);
      auto other_out = mem.allocate(out_count * es + 1);
      mem.copy(other_in->data(), partial->data(), BF * es);
      mem.synchronize();
      auto other = setup_.make(plan_.kind, plan_.impl, plan_.ring);
      const std::size_t slots = static_cast<std::size_t>(std::max(timing.iters, 1));
      std::vector<double> gemm_d(slots, 0.0), comm_d(slots, 0.0);
      std::size_t calls = 0, slot = 0;
      ChunkWorker beside([&] { backend_.enter_thread(); },
                         [&](std::size_t) {
                           const double t0 = coll::Tracer::now();
                           other->run(other_in->data(), other_out->data(), BF, plan_.type, coll::ReduceOp::Sum);
                           mem.synchronize();
                           comm_d[slot] = coll::Tracer::now() - t0;
                         });
      shardroof::measure(comm_, timing, *clock, [&](int) {
        slot = calls++ % slots;
        beside.submit(0);
        const double t0 = coll::Tracer::now();
        gemm->run();
        mem.synchronize();
        gemm_d[slot] = coll::Tracer::now() - t0;
        beside.wait();
      });
      const std::size_t filled = std::min(calls, slots);
      std::vector<double> local(2 * filled), all(2 * filled);
      std::copy(gemm_d.begin(), gemm_d.begin() + static_cast<std::ptrdiff_t>(filled), local.begin());
      std::copy(comm_d.begin(), comm_d.begin() + static_cast<std::ptrdiff_t>(filled),
                local.begin() + static_cast<std::ptrdiff_t>(filled));
      SHARDROOF_MPI_CHECK(
          MPI_Allreduce(local.data(), all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_MAX, comm_));
      const auto median = [](std::vector<double> v) {
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
        return v[v.size() / 2];
      };
      if (filled > 0)
        rec.concurrent = ConcurrentStep{
            median({all.begin(), all.begin() + static_cast<std::ptrdiff_t>(filled)}),
            median({all.begin() + static_cast<std::ptrdiff_t>(filled), all.end()})};
    }
    std::vector<int> Ks = plan_.overlap.chunks;
    if (plan_.overlap.automatic) {
      rec.overlap_choice = choose_chunks_at(B, F, shard.size, x->data(), y->data(), partial->data(), timing,
                                            rec.t_math.median, rec.t_comm.median,
                                            model::interference_from(rec.t_math.median, rec.t_comm.median,
                                                                     rec.concurrent ? rec.concurrent->gemm_s : 0,
                                                                     rec.concurrent ? rec.concurrent->comm_s : 0));
      Ks.clear();
      if (rec.overlap_choice->chosen > 1) Ks.push_back(rec.overlap_choice->chosen);
    }
    for (const int K : Ks) {
      OverlapRun run;
      run.chunks = K;
      std::vector<Chunk> chunks = plan_chunks(B, F, ranks_, rank_, plan_.kind, K);
      if (edit_chunks) edit_chunks(chunks);
      for (const Chunk& c : chunks) run.elements.push_back(static_cast<double>(c.count));
      auto* partial_bytes = static_cast<std::byte*>(partial->data());
      auto* z_bytes = static_cast<std::byte*>(z->data());
      std::vector<std::vector<ComputeBackend::GemmBlock>> blocks;
      for (const Chunk& c : chunks) {
        auto& mine = blocks.emplace_back();
        for (const ChunkBlock& b : c.blocks) mine.push_back({b.row, b.rows, b.col, b.cols, partial_bytes + b.dst * es});
      }
      auto chunk_gemm = backend_.prepare_gemm_chunks(B, F, shard.size, x->data(), y->data(), std::move(blocks),
                                                     plan_.type);
      // The chunks' collective runs on the communication thread: an instance
      // of its own, whose spans go to that thread's track (traced or not, so
      // tracing times the same code).
      coll::CollectiveOptions comm_ring = plan_.ring;
      comm_ring.tracer = trace::tracer_of(trace_, trace::Track::Comm);
      auto chunk_collective = setup_.make(plan_.kind, plan_.impl, comm_ring);
      coll::Tracer* const comm_tracer = comm_ring.tracer;
      const auto reduce_chunk = [&](std::size_t k) {
        const Chunk& c = chunks[k];
        chunk_collective->run(partial_bytes + c.send * es, z_bytes + c.recv * es, c.count, plan_.type,
                              coll::ReduceOp::Sum);
      };
      // Each chunk alone, at its own shape (the pipeline model's inputs):
      // its GEMM, then its collective on the partial sum the step above
      // left, before the poison below.
      for (std::size_t k = 0; k < chunks.size(); ++k)
        run.gemm_alone_s.push_back(time_alone(timing, *clock, [&] {
          chunk_gemm->begin();
          chunk_gemm->run(k);
          chunk_gemm->wait_for(k);
        }));
      for (std::size_t k = 0; k < chunks.size(); ++k)
        run.comm_alone_s.push_back(time_alone(timing, *clock, [&] { reduce_chunk(k); }));
      // Stamps of the last `iters` steps (a ring: warm-up steps are
      // overwritten), each chunk's GEMM on this thread and its collective on
      // the communication thread, written before that chunk is handed back.
      std::vector<std::vector<model::ChunkSpans>> stamps(
          static_cast<std::size_t>(std::max(timing.iters, 1)), std::vector<model::ChunkSpans>(chunks.size()));
      std::size_t calls = 0;
      model::ChunkSpans* spans = stamps.front().data();
      ChunkWorker comm_thread([&] { backend_.enter_thread(); },
                              [&](std::size_t k) {
                                {
                                  coll::TraceSpan span(comm_tracer, "wait gemm", "wait", {{"chunk", k}});
                                  chunk_gemm->wait_for(k);
                                }
                                spans[k].comm_start = aligned.now();
                                {
                                  coll::TraceSpan span(comm_tracer, kind_name, "collective",
                                                       {{"bytes", chunks[k].count * es}, {"chunk", k}});
                                  reduce_chunk(k);
                                }
                                spans[k].comm_end = aligned.now();
                              });
      // The steps above left a correct Z (and partial sum) behind; NaN bytes
      // in their place make a chunk that the overlapped step never writes,
      // or writes from stale data, fail the check instead of passing.
      {
        const std::vector<std::byte> nan_bytes(BF * es, std::byte{0xFF});
        mem.copy(partial->data(), nan_bytes.data(), BF * es);
        mem.copy(z->data(), nan_bytes.data(), out_count * es);
        mem.synchronize();
      }
      run.t_overlap = timed("T_overlap", K, [&] {
        spans = stamps[calls++ % stamps.size()].data();
        chunk_gemm->begin();
        for (std::size_t k = 0; k < chunks.size(); ++k) {
          {
            coll::TraceSpan span(tracer, "gemm", "compute",
                                 {{"chunk", k}, {"elements", chunks[k].count}, {"k", shard.size}});
            // Chunk k's GEMM (queued on its own stream on a GPU: there the
            // stamps hold the queueing, and the collective's start, after
            // its wait, marks the GEMM's end).
            spans[k].gemm_start = aligned.now();
            chunk_gemm->run(k);
            spans[k].gemm_end = aligned.now();
          }
          comm_thread.submit(k);  // its collective, while chunk k + 1 computes
        }
        coll::TraceSpan span(tracer, "wait comm", "wait", {{"chunks", chunks.size()}});
        comm_thread.wait();
      });
      summarize_stamps(stamps, std::min(calls, stamps.size()), run);
      if (plan_.check) run.check = check_z();
      rec.overlap_runs.push_back(std::move(run));
    }
    // T_overlap is the first K's; the check holds every K's (a wrong
    // product at any K fails the point).
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

  if (z_out) {
    if (!plan_.check) fetch_z();
    host.resize(out_count * es);
    *z_out = std::move(host);
  }
  return rec;
}

double SweepRunner::time_alone(const TimingPlan& timing, Clock& clock, const std::function<void()>& body) {
  return shardroof::measure(comm_, timing, clock, [&](int) { body(); }).median;
}

void SweepRunner::summarize_stamps(const std::vector<std::vector<model::ChunkSpans>>& stamps, std::size_t filled,
                                   OverlapRun& run) const {
  // The stamps are on rank 0's clock. A chunk's collective cannot start
  // before every rank has handed it over, so across ranks it runs from the
  // latest start to the latest end (a rank that starts early waits for its
  // peers' GEMMs, which is not the collective's own time); a chunk's GEMM
  // counts as its slowest rank's; the step runs from the earliest first
  // GEMM to the latest last collective. Then the median of each over the
  // stamped steps.
  const std::size_t K = run.elements.size();
  const std::size_t width = 3 * K + 1;
  std::vector<double> local(filled * width, 0.0);
  for (std::size_t i = 0; i < filled; ++i) {
    double* v = local.data() + i * width;
    for (std::size_t k = 0; k < K; ++k) {
      const model::ChunkSpans& c = stamps[i][k];
      v[k] = c.comm_start;
      v[K + k] = c.comm_end;
      v[2 * K + k] = c.gemm_end - c.gemm_start;
    }
    v[3 * K] = K > 0 ? -stamps[i][0].gemm_start : 0;
  }
  std::vector<double> all(local.size());
  if (!all.empty())
    SHARDROOF_MPI_CHECK(
        MPI_Allreduce(local.data(), all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_MAX, comm_));
  const auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  run.gemm_in_step_s.assign(K, 0.0);
  run.comm_in_step_s.assign(K, 0.0);
  for (std::size_t k = 0; k < K; ++k) {
    std::vector<double> g, c;
    for (std::size_t i = 0; i < filled; ++i) {
      const double* v = all.data() + i * width;
      g.push_back(v[2 * K + k]);
      c.push_back(v[K + k] - v[k]);
    }
    run.gemm_in_step_s[k] = median(g);
    run.comm_in_step_s[k] = median(c);
  }
  std::vector<double> step;
  for (std::size_t i = 0; i < filled && K > 0; ++i) {
    const double* v = all.data() + i * width;
    step.push_back(v[2 * K - 1] + v[3 * K]);
  }
  run.stamped_step_s = median(step);
}

OverlapChoiceRecord SweepRunner::choose_chunks_at(std::size_t B, std::size_t F, std::size_t shard, const void* x,
                                                  const void* y, void* partial, const TimingPlan& timing,
                                                  double t_math, double t_comm,
                                                  const model::Interference& interference) {
  // One chunk's GEMM (the first, the largest) timed alone at each K auto
  // weighs: chunks differ by at most a row, so it stands for all of them.
  auto clock = backend_.make_clock();
  const std::size_t es = coll::size_of(plan_.type);
  std::vector<std::pair<int, double>> gemm_at_K;
  for (const int K : model::auto_candidates(auto_chunk_bound(B, F, ranks_, plan_.kind))) {
    if (K == 1) continue;
    const std::vector<Chunk> chunks = plan_chunks(B, F, ranks_, rank_, plan_.kind, K);
    std::vector<std::vector<ComputeBackend::GemmBlock>> blocks(1);
    for (const ChunkBlock& b : chunks.front().blocks)
      blocks.front().push_back({b.row, b.rows, b.col, b.cols, static_cast<std::byte*>(partial) + b.dst * es});
    auto gemm = backend_.prepare_gemm_chunks(B, F, shard, x, y, std::move(blocks), plan_.type);
    gemm_at_K.emplace_back(K, time_alone(timing, *clock, [&] {
                             gemm->begin();
                             gemm->run(0);
                             gemm->wait_for(0);
                           }));
  }
  return choose_overlap(model_shape(plan_, ranks_), overlap_link_, t_math, t_comm, gemm_at_K, interference);
}

namespace {
// Fewer iterations than a point: these are long and stable.
TimingPlan quick_timing(const TimingPlan& t) { return {std::min(t.warmup, 2), std::clamp(t.iters, 1, 10)}; }
// The calibration's T_comm(S) and the ring probe: at least the floors of
// sweep/sample_floors.h (20 and 50 iterations on a real machine).
TimingPlan collective_timing(const TimingPlan& t) {
  const SampleFloors f = sample_floors();
  return {std::max(t.warmup, f.warmup), std::max(t.iters, f.collective_iters)};
}
TimingPlan probe_timing(const TimingPlan& t) {
  const SampleFloors f = sample_floors();
  return {std::max(t.warmup, f.warmup), std::max(t.iters, f.probe_iters)};
}
// A round's share: every round adds its samples to the earlier rounds'.
TimingPlan round_timing(const TimingPlan& t) { return {std::min(t.warmup, 2), std::clamp(t.iters, 1, 10)}; }
}  // namespace

double SweepRunner::now_on_rank0() const {
  double now = coll::Tracer::now();
  SHARDROOF_MPI_CHECK(MPI_Bcast(&now, 1, MPI_DOUBLE, 0, comm_));
  return now;
}

RunCeilings SweepRunner::measure_ceilings(bool probe_link) {
  RunCeilings out;
  out.origin_s = now_on_rank0();
  out.round_starts = {out.origin_s};
  out.peak_gemm = peak_gemm();
  out.reduce = reduce_rate();
  out.memory = memory_bandwidth();
  out.floor_gemm = floor_gemm(plan_.timing);
  out.call_gemm = call_gemm(plan_.timing);
  out.collective = collective_at_S();
  if (probe_link) {
    out.link.probe = ring_probe(probe_timing(plan_.timing));
    out.link.W_bytes_per_s = out.link.probe->fit.W_bytes_per_s;
    out.link.alpha_s = out.link.probe->fit.alpha_s;
    out.link.source = "ring probe";
    out.link.pattern = "ring";
  }
  return out;
}

RunCeilings SweepRunner::measure_ceiling_round(const RunCeilings& first) {
  RunCeilings out;
  out.rounds = 1;
  out.round_starts = {now_on_rank0()};
  const TimingPlan t = round_timing(plan_.timing);
  const GemmRate& p = first.peak_gemm;
  out.peak_gemm = measure_gemm_rate(backend_, comm_, p.m, p.n, p.k, plan_.type, {std::min(t.warmup, 1), std::min(t.iters, 5)});
  out.reduce = measure_reduce_rate(backend_, comm_, plan_.type, plan_.B * plan_.F, t);
  out.memory = measure_memory_bandwidth(backend_, comm_, first.memory.elements, {std::min(t.warmup, 1), std::min(t.iters, 5)});
  out.floor_gemm = floor_gemm(t);
  if (first.link.probe) out.link.probe = ring_probe(t);
  return out;
}

GemmRate SweepRunner::floor_gemm(const TimingPlan& timing) {
  return measure_gemm_rate(backend_, comm_, plan_.B, plan_.F, 1, plan_.type, timing);
}

GemmRate SweepRunner::call_gemm(const TimingPlan& timing) {
  return measure_call_rate(backend_, comm_, plan_.type, timing);
}

GemmRate SweepRunner::peak_gemm() {
  // C_peak: a large local GEMM, square-ish in B and F with a deep inner
  // dimension, grown until one call is long enough to time.
  return measure_peak_gemm_rate(backend_, comm_, std::min<std::size_t>(plan_.B, 2048),
                                std::min<std::size_t>(plan_.F, 2048), 1024, plan_.type, quick_timing(plan_.timing));
}

MemoryBandwidth SweepRunner::memory_bandwidth() {
  // M: in the backend's memory, arrays well beyond the caches (32 MiB of
  // doubles each, or more than a GPU's L2).
  return measure_memory_bandwidth(backend_, comm_, std::size_t{1} << 22, quick_timing(plan_.timing));
}

ReduceRate SweepRunner::reduce_rate() {
  return measure_reduce_rate(backend_, comm_, plan_.type, plan_.B * plan_.F, plan_.timing);
}

CollectiveTime SweepRunner::collective_at_S() {
  const std::size_t es = coll::size_of(plan_.type);
  return time_collective(setup_, comm_, plan_.kind, plan_.impl, plan_.ring, plan_.type, plan_.B * plan_.F * es,
                         collective_timing(plan_.timing));
}

std::optional<TwoLevelProbes> SweepRunner::measure_two_level_probes() {
  return measure_two_level_probe(setup_.transport(), setup_.memory(), comm_, plan_.ring.hier.node_of_rank,
                                 plan_.B * plan_.F, coll::size_of(plan_.type), probe_timing(plan_.timing));
}

link::RingProbeResult SweepRunner::ring_probe(const TimingPlan& timing) {
  // The ring's step moves one block of the B x F partial sum.
  const std::size_t es = coll::size_of(plan_.type);
  const std::uint64_t block = coll::BlockPartition(plan_.B * plan_.F, ranks_).max_size() * es;
  link::RingProbePlan probe{link::ring_probe_sizes(block, es), timing};
  // A ring step sends the block its reduction has just written: so does the
  // probe. Between two vCPUs on different L3 caches, bytes still dirty in
  // the sender's cache moved at 4.5-5.4 GB/s where bytes written long ago
  // moved at 11-13 GB/s, and the ring's time followed the former.
  probe.fresh_send = true;
  return link::measure_ring_probe(setup_.transport(), setup_.memory(), comm_, probe);
}

}  // namespace shardroof::sweep
