#include "sweep/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <vector>

#include "collectives/blocks.h"
#include "collectives/mpi_transport.h"
#include "collectives/trace.h"
#include "sweep/operands.h"
#include "sweep/overlap_model.h"
#include "sweep/sample_floors.h"
#include "trace/clock_sync.h"
#include "collectives/check_pattern.h"
#include "collectives/sub_transport.h"
#include "link/level_probe.h"
#include "link/two_level_probe.h"
#include "util/error.h"
#include "util/mpi_session.h"

namespace shardroof::sweep {

void share_step(MPI_Comm comm, SearchStep& step) {
  long long v[5] = {static_cast<long long>(step.stop), static_cast<long long>(step.D),
                    static_cast<long long>(step.D2), step.round ? 1 : 0, step.iters};
  broadcast_from_root(comm, v);
  step.stop = static_cast<SearchStop>(v[0]);
  step.D = static_cast<std::uint64_t>(v[1]);
  step.D2 = static_cast<std::uint64_t>(v[2]);
  step.round = v[3] != 0;
  step.iters = static_cast<int>(v[4]);
}

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
  if (plan_.fsdp()) return measure_fsdp(D, timing, z_out);
  auto& mem = backend_.memory();
  const std::size_t es = coll::size_of(plan_.type);
  const std::size_t B = plan_.B, F = plan_.F, BF = B * F;
  const Shard shard = shard_of(D, ranks_, rank_);

  // Output of the collective: all of Z (AllReduce) or this rank's block (ReduceScatter).
  const coll::BlockPartition zpart(BF, ranks_);
  const bool scatter = plan_.kind == coll::CollectiveKind::ReduceScatter;
  const std::size_t out_first = scatter ? zpart.offset(rank_) : 0;
  const std::size_t out_count = scatter ? zpart.size(rank_) : BF;

  // Everything is made before anything is timed. With --redraw-buffers a
  // spacer of 1 to 64 pages (drawn for this measurement, the same on every
  // rank's count but at each rank's own addresses) is allocated first and
  // held until the end, so the buffers below do not land where the last
  // measurement's did.
  const std::uint64_t draw = (plan_.seed ^ (0x9e3779b97f4a7c15ull * ++measurements_)) >> 7;
  const auto spacer = plan_.redraw_buffers ? mem.allocate((1 + draw % 64) * 4096) : nullptr;
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
  const auto timed = [&](const char* what, int chunks, const std::function<void()>& body) {
    return timed_region({what, std::string(coll::to_string(plan_.kind)), setup_.describe(plan_.impl), BF * es, D,
                         shard.size, -1, timing.iters - 1, timing.iters, chunks},
                        timing, *clock, &aligned, tracer, *collective, body);
  };

  PointRecord rec;
  rec.D = D;
  rec.iterations = timing.iters;
  rec.windows = {timing.iters};
  rec.shard_max = coll::BlockPartition(D, ranks_).max_size();

  // The distributed product the last step left in z, on the host.
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

  if (plan_.overlap.enabled()) {
    // The plain step, its parts and every chunked step in the same rounds
    // (sweep/overlap_runner.cpp).
    const PointContext point{D, shard, out_count, x->data(), y->data(), partial->data(), z->data(), *gemm,
                             *clock, aligned, tracer, kind_name, run_gemm, reduce, check_z, timing, edit_chunks};
    measure_overlapped(point, rec);
  } else {
    rec.t_math = timed("T_math", 0, run_gemm);
    rec.t_comm = timed("T_comm", 0, reduce);
    rec.t_step = timed("T_step", 0, [&] {
      run_gemm();
      reduce();
    });
    if (plan_.check) rec.check = check_z();
  }
  const double flops = 2.0 * static_cast<double>(B) * static_cast<double>(rec.shard_max) * static_cast<double>(F);
  rec.flops_per_s = rec.t_math.median > 0 ? flops / rec.t_math.median : 0;

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
  out.reduce = measure_reduce_rate(backend_, comm_, plan_.type, whole_rows(plan_) * plan_.F, t);
  out.memory = measure_memory_bandwidth(backend_, comm_, first.memory.elements, {std::min(t.warmup, 1), std::min(t.iters, 5)});
  out.floor_gemm = floor_gemm(t);
  if (first.link.probe) out.link.probe = ring_probe(t);
  return out;
}

GemmRate SweepRunner::floor_gemm(const TimingPlan& timing) {
  // A shard of one: one column of D (B x F x 1), or with fsdp one row of
  // the batch on every rank (1 x F x D, reading the whole weight).
  if (plan_.fsdp()) return measure_gemm_rate(backend_, comm_, 1, plan_.F, plan_.fsdp_D, plan_.type, timing);
  return measure_gemm_rate(backend_, comm_, plan_.B, plan_.F, 1, plan_.type, timing);
}

GemmRate SweepRunner::call_gemm(const TimingPlan& timing) {
  return measure_call_rate(backend_, comm_, plan_.type, timing);
}

TimeStats SweepRunner::timed_region(trace::Region region, const TimingPlan& timing, Clock& clock,
                                    const AlignedClock* aligned, coll::Tracer* tracer,
                                    const coll::Collective& collective, const std::function<void()>& body) {
  if (trace_) trace_->begin_region(std::move(region));
  const TimeStats t = shardroof::measure(
      comm_, timing, clock,
      [&](int) {
        coll::TraceSpan iteration(tracer, "iteration", "iteration");
        body();
      },
      trace::record_last_iteration(trace_, timing), aligned);
  if (trace_) {
    trace_->set_recording(false);
    // `auto` picks by size: name what it ran.
    if (plan_.impl == coll::Algorithm::Auto)
      trace_->current_region().algorithm = collective.algorithm() + "/" + std::string(setup_.transport().name());
  }
  return t;
}

GemmRate SweepRunner::peak_gemm() {
  // C_peak: a large local GEMM, square-ish in B and F with a deep inner
  // dimension, grown until one call is long enough to time.
  return measure_peak_gemm_rate(backend_, comm_, std::min<std::size_t>(whole_rows(plan_), 2048),
                                std::min<std::size_t>(plan_.F, 2048), 1024, plan_.type, quick_timing(plan_.timing),
                                sample_floors().peak_gemm_s);
}

MemoryBandwidth SweepRunner::memory_bandwidth() {
  // M: in the backend's memory, arrays well beyond the caches (32 MiB of
  // doubles each, or more than a GPU's L2).
  return measure_memory_bandwidth(backend_, comm_, std::size_t{1} << 22, quick_timing(plan_.timing));
}

ReduceRate SweepRunner::reduce_rate() {
  return measure_reduce_rate(backend_, comm_, plan_.type, whole_rows(plan_) * plan_.F, plan_.timing);
}

CollectiveTime SweepRunner::collective_at_S() {
  const std::size_t es = coll::size_of(plan_.type);
  return time_collective(setup_, comm_, plan_.kind, plan_.impl, plan_.ring, plan_.type,
                         whole_rows(plan_) * plan_.F * es, collective_timing(plan_.timing));
}

std::optional<TwoLevelProbes> SweepRunner::measure_two_level_probes() {
  // Two levels are hier's, which gathers nothing: none with fsdp.
  if (plan_.fsdp()) return std::nullopt;
  return link::measure_two_level_probe(setup_.transport(), setup_.memory(), comm_, plan_.ring.hier.node_of_rank,
                                       plan_.B * plan_.F, coll::size_of(plan_.type), probe_timing(plan_.timing));
}

std::optional<LevelMeasurements> SweepRunner::measure_levels(const coll::HierarchyLayout& layout) {
  if (plan_.fsdp()) return std::nullopt;
  const std::size_t es = coll::size_of(plan_.type);
  const std::size_t BF = plan_.B * plan_.F;
  LevelMeasurements out;
  out.probes = link::measure_level_probes(setup_.transport(), setup_.memory(), comm_, layout, BF, es,
                                          probe_timing(plan_.timing));
  auto& mem = backend_.memory();
  auto clock = backend_.make_clock();
  // Every level's collectives on their own groups, built and filled before any is timed.
  struct LevelRun {
    std::unique_ptr<coll::SubTransport> transport;
    std::unique_ptr<coll::Collective> ring, hier;
    std::unique_ptr<coll::Allocation> in, ring_out, hier_out;
  };
  std::vector<LevelRun> runs;
  std::vector<IterationFn> ops;
  std::vector<std::byte> host(BF * es + 1);
  for (const link::LevelProbe& probe : out.probes.levels) {
    LevelRun r;
    r.transport = std::make_unique<coll::SubTransport>(setup_.transport(),
                                                       layout.unit_members(rank_, probe.level));
    const int n = r.transport->size();
    coll::CollectiveOptions options = plan_.ring;
    options.tracer = nullptr;
    r.ring = coll::make_collective(coll::Algorithm::Ring, plan_.kind, *r.transport, setup_.memory(), options);
    if (probe.ranks > probe.group_size) {  // a level below moves data: hier is not the ring
      // The group's ranks in index order: consecutive units at every level below.
      options.hier.node_of_rank.assign(static_cast<std::size_t>(n), 0);
      options.hier.group_of_rank.assign(static_cast<std::size_t>(probe.level - 1), std::vector<int>(n, 0));
      for (int j = 0; j < n; ++j) {
        int unit = layout.size(0);
        options.hier.node_of_rank[static_cast<std::size_t>(j)] = j / unit;
        for (int l = 1; l < probe.level; ++l) {
          unit *= layout.size(l);
          options.hier.group_of_rank[static_cast<std::size_t>(l - 1)][static_cast<std::size_t>(j)] = j / unit;
        }
      }
      r.hier = coll::make_collective(coll::Algorithm::Hier, plan_.kind, *r.transport, setup_.memory(), options);
      r.hier_out = mem.allocate(BF * es + 1);
    }
    r.in = mem.allocate(BF * es + 1);
    r.ring_out = mem.allocate(BF * es + 1);
    coll::fill_pattern(host.data(), BF, 0, r.transport->rank(), n, plan_.type, coll::ReduceOp::Sum);
    mem.copy(r.in->data(), host.data(), BF * es);
    mem.synchronize();
    runs.push_back(std::move(r));
  }
  for (LevelRun& r : runs) {
    ops.push_back([&r, BF, this](int) {
      r.ring->run(r.in->data(), r.ring_out->data(), BF, plan_.type, coll::ReduceOp::Sum);
    });
    if (r.hier)
      ops.push_back([&r, BF, this](int) {
        r.hier->run(r.in->data(), r.hier_out->data(), BF, plan_.type, coll::ReduceOp::Sum);
      });
  }
  const std::vector<std::vector<double>> times = time_interleaved(comm_, plan_.timing, *clock, ops);
  std::size_t op = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    LevelRun& r = runs[i];
    LevelComm c;
    c.level = out.probes.levels[i].level;
    c.ranks = out.probes.levels[i].ranks;
    c.ring = summarize(times[op++]);
    if (r.hier) c.hier = summarize(times[op++]);
    // What the last timed calls left, checked as every collective is.
    const coll::CallShape at{BF, r.transport->rank(), r.transport->size(), 0};
    long long wrong = 0;
    for (auto* buffer : {&r.ring_out, &r.hier_out}) {
      if (!*buffer) continue;
      mem.copy(host.data(), (*buffer)->data(), coll::traits(plan_.kind).output_count(at) * es);
      mem.synchronize();
      wrong +=
          static_cast<long long>(coll::count_wrong(host.data(), at, plan_.kind, plan_.type, coll::ReduceOp::Sum));
    }
    c.wrong = sum_over_ranks(comm_, wrong);
    out.comm.push_back(c);
  }
  return out;
}

link::RingProbeResult SweepRunner::ring_probe(const TimingPlan& timing) {
  // The ring's step moves one block of the B x F partial sum (of the D x F
  // weight with fsdp).
  const std::size_t es = coll::size_of(plan_.type);
  const std::uint64_t block = coll::BlockPartition(whole_rows(plan_) * plan_.F, ranks_).max_size() * es;
  link::RingProbePlan probe{link::ring_probe_sizes(block, es), timing};
  // A ring step sends the block its reduction has just written: so does the
  // probe. Between two vCPUs on different L3 caches, bytes still dirty in
  // the sender's cache moved at 4.5-5.4 GB/s where bytes written long ago
  // moved at 11-13 GB/s, and the ring's time followed the former.
  probe.fresh_send = true;
  return link::measure_ring_probe(setup_.transport(), setup_.memory(), comm_, probe);
}

namespace {

void budget_fsdp_memory(SweepPlan& plan, int ranks, const NodeMemory& node) {
  const std::uint64_t es = coll::size_of(plan.type);
  const std::uint64_t n = static_cast<std::uint64_t>(ranks);
  const std::uint64_t DF = saturating_mul(plan.fsdp_D, plan.F);
  const std::uint64_t L = plan.prefetch.enabled ? static_cast<std::uint64_t>(plan.prefetch.layers) : 0;
  // The whole weight and T_comm at S's two buffers; with prefetch a second
  // whole weight; the blocks (one, and L more), each at most D*F/N + 1.
  const std::uint64_t whole = saturating_mul(saturating_mul(es, DF), plan.prefetch.enabled ? 4 : 3);
  const std::uint64_t fixed =
      saturating_add(whole, saturating_mul(saturating_mul(es, 1 + L), DF / n + 1));
  // Per row of a rank's batch: a row of X (D) and of Z (F), and with prefetch L more rows of Z.
  const std::uint64_t per_row = saturating_mul(es, saturating_add(plan.fsdp_D, saturating_mul(1 + L, plan.F)));
  const std::string what = fmt::format("--D {} and --F {}{}", plan.fsdp_D, plan.F,
                                       L ? fmt::format(" with --layers {}", L) : std::string());
  if (plan.search) {
    require_memory(node, saturating_add(fixed, per_row), what);
    const std::optional<std::uint64_t> usable = usable_bytes_per_rank(node);
    std::uint64_t rows = static_cast<std::uint64_t>(INT_MAX) / std::max<std::uint64_t>(plan.F, plan.fsdp_D);
    if (usable) rows = std::min(rows, (*usable - fixed) / per_row);
    if (rows < 1) throw_usage("{} leave no memory for a row of X and Z", what);
    plan.D_max = rows * n;
    return;
  }
  require_memory(node, saturating_add(fixed, saturating_mul(per_row, plan.D.back() / n)),
                 fmt::format("--B {} with {}", plan.D.back(), what));
}

}  // namespace

void budget_memory(SweepPlan& plan, int ranks, const NodeMemory& node) {
  if (plan.fsdp()) return budget_fsdp_memory(plan, ranks, node);
  const std::uint64_t es = coll::size_of(plan.type);
  const std::uint64_t buffers = plan.overlap.enabled() && plan.backend == Backend::Cpu ? 8 : 6;
  const std::uint64_t fixed = saturating_mul(saturating_mul(buffers * es, plan.B), plan.F);
  if (plan.search) {
    require_memory(node, fixed, fmt::format("--B {} and --F {}", plan.B, plan.F));
    const std::optional<std::uint64_t> usable = usable_bytes_per_rank(node);
    // Unknown memory: only MPI's int counts bound the search.
    std::uint64_t shard = static_cast<std::uint64_t>(INT_MAX) - 1;
    if (usable) shard = std::min(shard, (*usable - fixed) / (es * (plan.B + plan.F)));
    if (shard < 1) throw_usage("--B {} and --F {} leave no memory for a shard of X and Y", plan.B, plan.F);
    plan.D_max = shard * static_cast<std::uint64_t>(ranks);
    return;
  }
  const std::uint64_t dmax = (plan.D.back() + static_cast<std::uint64_t>(ranks) - 1) / static_cast<std::uint64_t>(ranks);
  require_memory(node, saturating_add(saturating_mul(es * (plan.B + plan.F), dmax), fixed),
                 fmt::format("--D {} with --B {} and --F {}", plan.D.back(), plan.B, plan.F));
}

}  // namespace shardroof::sweep
