// One point of `sweep --sharding fsdp` (sweep/plan.h): the batch B split
// over the ranks, each rank holding X[B/N, D] and its block of the weight
// W[D, F], which the AllGather makes whole before the GEMM.
//   T_math  the rank's GEMM Z[B/N, F] = X[B/N, D] @ W[D, F]
//   T_comm  the AllGather of W (D x F elements, each rank's block)
//   T_step  the AllGather, then the GEMM, timed as one step
//   with --overlap prefetch: `layers` layers in a row, serial and with each
//           layer's gather during the GEMM before (two weight buffers)
// After timing, every rank checks the weight it gathered (exactly) and its
// rows of Z (against the reference or Freivalds, sweep/check.h).
#include <algorithm>
#include <array>
#include <climits>
#include <vector>

#include "collectives/blocks.h"
#include "collectives/trace.h"
#include "sweep/operands.h"
#include "sweep/runner.h"
#include "trace/clock_sync.h"
#include "util/mpi_session.h"

namespace shardroof::sweep {

namespace {

// A check over ranks from each rank's local ones (product rows and the
// gathered weight's elements add up).
PointCheck agreed_check(MPI_Comm comm, const std::vector<LocalCheck>& local) {
  long long wrong = 0, tested = 0;
  double worst = 0;
  std::string method;
  for (const LocalCheck& c : local) {
    wrong += c.wrong;
    tested += c.tested;
    worst = std::max(worst, c.worst_ratio);
    if (c.method != "exact") method = c.method;
  }
  PointCheck out;
  out.checked = true;
  out.wrong = sum_over_ranks(comm, wrong);
  out.tested = sum_over_ranks(comm, tested);
  out.worst_ratio = max_over_ranks(comm, worst);
  // Every rank holds rows and the whole weight: "freivalds" or "full", and the weight exactly.
  out.method = broadcast_string(comm, method) + ", gathered weight exact";
  return out;
}

}  // namespace

PointRecord SweepRunner::measure_fsdp(std::uint64_t B, const TimingPlan& timing, std::vector<std::byte>* z_out) {
  auto& mem = backend_.memory();
  const std::size_t es = coll::size_of(plan_.type);
  const std::size_t D = plan_.fsdp_D, F = plan_.F, DF = D * F;
  // The plan and the search keep B a multiple of N: every rank holds B/N rows.
  const std::size_t rows = static_cast<std::size_t>(B) / static_cast<std::size_t>(ranks_);
  const std::size_t first_row = rows * static_cast<std::size_t>(rank_);
  const coll::BlockPartition wpart(DF, ranks_);
  const std::size_t w_first = wpart.offset(rank_), w_count = wpart.size(rank_);

  // Everything is made before anything is timed, the buffers after a
  // spacer of a drawn size (--redraw-buffers, as the contracting case).
  const std::uint64_t draw = (plan_.seed ^ (0x9e3779b97f4a7c15ull * ++measurements_)) >> 7;
  const auto spacer = plan_.redraw_buffers ? mem.allocate((1 + draw % 64) * 4096) : nullptr;
  auto x = mem.allocate(rows * D * es + 1);
  auto shard = mem.allocate(w_count * es + 1);
  auto w = mem.allocate(DF * es + 1);
  auto z = mem.allocate(rows * F * es + 1);
  {
    std::vector<std::byte> host(std::max(rows * D, w_count) * es + 1);
    fill_x_rows(host.data(), plan_.type, plan_.seed, D, first_row, rows);
    mem.copy(x->data(), host.data(), rows * D * es);
    fill_y_elements(host.data(), plan_.type, plan_.seed, F, w_first, w_count);
    mem.copy(shard->data(), host.data(), w_count * es);
    mem.synchronize();
  }
  coll::Tracer* const tracer = trace::tracer_of(trace_);
  coll::CollectiveOptions ring = plan_.ring;
  ring.tracer = tracer;
  auto gather = setup_.make(plan_.kind, plan_.impl, ring);
  auto clock = backend_.make_clock();
  const AlignedClock aligned = trace::aligned_clock(comm_);
  const auto gather_w = [&] {
    coll::TraceSpan span(tracer, "all_gather", "collective", {{"bytes", DF * es}});
    gather->run(shard->data(), w->data(), DF, plan_.type, coll::ReduceOp::Sum);
  };
  // The GEMM is prepared on the gathered weight: a backend may copy its
  // operands at preparation (bfloat16 on the CPU is widened to float once,
  // outside the timed region, as in the contracting case; there the step's
  // GEMM reads that copy, and the gathered weight's own check below shows
  // the gather delivered).
  gather_w();
  mem.synchronize();
  auto gemm = backend_.prepare_gemm(rows, F, D, x->data(), w->data(), z->data(), plan_.type);
  const auto run_gemm = [&] {
    coll::TraceSpan span(tracer, "gemm", "compute", {{"m", rows}, {"n", F}, {"k", D}});
    gemm->run();
  };
  const auto timed = [&](const char* what, const std::function<void()>& body) {
    return timed_region({what, "all_gather", setup_.describe(plan_.impl), DF * es, B, rows, -1, timing.iters - 1,
                         timing.iters, 0},
                        timing, *clock, &aligned, tracer, *gather, body);
  };
  const auto poison = [&](void* buffer, std::size_t bytes) {
    const std::vector<std::byte> nan_bytes(bytes, std::byte{0xFF});
    mem.copy(buffer, nan_bytes.data(), bytes);
    mem.synchronize();
  };

  PointRecord rec;
  rec.D = B;
  rec.iterations = timing.iters;
  rec.windows = {timing.iters};
  rec.shard_max = rows;
  rec.t_math = timed("T_math", run_gemm);
  rec.t_comm = timed("T_comm", gather_w);
  // NaN bytes in the weight and in Z: a step whose gather or GEMM does not
  // deliver fails the check instead of passing on what the steps above left.
  poison(w->data(), DF * es);
  poison(z->data(), rows * F * es);
  rec.t_step = timed("T_step", [&] {
    gather_w();
    run_gemm();
  });
  const double flops = 2.0 * static_cast<double>(rows) * static_cast<double>(D) * static_cast<double>(F);
  rec.flops_per_s = rec.t_math.median > 0 ? flops / rec.t_math.median : 0;

  // This rank's rows of Z, and the weight it gathered, on the host.
  std::vector<std::byte> host_z(rows * F * es + 1), host_w;
  const auto fetch = [&](std::vector<std::byte>& host, const void* src, std::size_t bytes) {
    host.resize(bytes + 1);
    mem.copy(host.data(), src, bytes);
    mem.synchronize();
  };
  const auto check_layer = [&](const void* zl, const void* wl, std::uint64_t y_seed) {
    fetch(host_z, zl, rows * F * es);
    fetch(host_w, wl, DF * es);
    // One GEMM of inner length D, no reduction across ranks: the tolerance
    // of a single rank's product.
    return std::vector<LocalCheck>{
        check_product_block(host_z.data(), plan_.type, plan_.seed, y_seed, B, D, F, first_row * F, rows * F, 1),
        check_gathered_weight(host_w.data(), plan_.type, y_seed, D, F)};
  };
  if (plan_.check) rec.check = agreed_check(comm_, check_layer(z->data(), w->data(), plan_.seed));
  if (plan_.prefetch.enabled) {
    rec.prefetch = measure_prefetch(B, rows, first_row, x->data(), timing, *clock);
    rec.overlap_check = rec.prefetch->check;
  }
  if (z_out) {
    fetch(host_z, z->data(), rows * F * es);
    host_z.resize(rows * F * es);
    *z_out = std::move(host_z);
  }
  return rec;
}

PrefetchRun SweepRunner::measure_prefetch(std::uint64_t B, std::size_t rows, std::size_t first_row, const void* x,
                                          const TimingPlan& timing, Clock& clock) {
  auto& mem = backend_.memory();
  const std::size_t es = coll::size_of(plan_.type);
  const std::size_t D = plan_.fsdp_D, F = plan_.F, DF = D * F;
  const std::size_t L = static_cast<std::size_t>(plan_.prefetch.layers);
  const coll::BlockPartition wpart(DF, ranks_);
  const std::size_t w_first = wpart.offset(rank_), w_count = wpart.size(rank_);
  // Layer l's weights are made with seed + l: a GEMM that reads another
  // layer's buffer fails the check.
  const auto layer_seed = [&](std::size_t l) { return plan_.seed + l; };
  std::vector<std::unique_ptr<coll::Allocation>> shards, zs;
  std::array<std::unique_ptr<coll::Allocation>, 2> buffers = {mem.allocate(DF * es + 1), mem.allocate(DF * es + 1)};
  {
    std::vector<std::byte> host(w_count * es + 1);
    for (std::size_t l = 0; l < L; ++l) {
      fill_y_elements(host.data(), plan_.type, layer_seed(l), F, w_first, w_count);
      shards.push_back(mem.allocate(w_count * es + 1));
      mem.copy(shards.back()->data(), host.data(), w_count * es);
      zs.push_back(mem.allocate(rows * F * es + 1));
    }
    mem.synchronize();
  }
  // The gathers run on the communication thread: an instance of their own,
  // whose spans go to that thread's track.
  coll::CollectiveOptions comm_ring = plan_.ring;
  comm_ring.tracer = trace::tracer_of(trace_, trace::Track::Comm);
  auto gather = setup_.make(plan_.kind, plan_.impl, comm_ring);
  const auto gather_layer = [&](std::size_t l) {
    coll::TraceSpan span(comm_ring.tracer, "all_gather", "collective", {{"bytes", DF * es}, {"layer", l}});
    gather->run(shards[l]->data(), buffers[l % 2]->data(), DF, plan_.type, coll::ReduceOp::Sum);
    mem.synchronize();
  };
  // Each layer's GEMM is prepared on its buffer holding its weights (see
  // measure_fsdp on a backend that copies them at preparation).
  std::vector<std::unique_ptr<ComputeBackend::PreparedGemm>> gemms;
  for (std::size_t l = 0; l < L; ++l) {
    gather_layer(l);
    gemms.push_back(backend_.prepare_gemm(rows, F, D, x, buffers[l % 2]->data(), zs[l]->data(), plan_.type));
  }
  coll::Tracer* const tracer = trace::tracer_of(trace_);
  const auto run_gemm = [&](std::size_t l) {
    coll::TraceSpan span(tracer, "gemm", "compute", {{"layer", l}, {"m", rows}, {"k", D}});
    gemms[l]->run();
    // The buffer it reads is the one the gather after next fills.
    backend_.synchronize();
  };
  PrefetchRun run;
  run.layers = static_cast<int>(L);
  for (std::size_t l = 0; l < L; ++l) run.gather_alone_s.push_back(time_alone(timing, clock, [&] { gather_layer(l); }));
  for (std::size_t l = 0; l < L; ++l) run.gemm_alone_s.push_back(time_alone(timing, clock, [&] { run_gemm(l); }));
  const auto timed = [&](const char* what, const std::function<void()>& body) {
    return timed_region({what, "all_gather", setup_.describe(plan_.impl), DF * es, B, rows, -1, timing.iters - 1,
                         timing.iters, static_cast<int>(L)},
                        timing, clock, nullptr, tracer, *gather, body);
  };
  run.t_serial = timed("T_serial", [&] {
    for (std::size_t l = 0; l < L; ++l) {
      gather_layer(l);
      run_gemm(l);
    }
  });
  // The communication thread gathers the layer `next` names; the main
  // thread makes no MPI call from handing it over until it has ended.
  std::size_t next = 0;
  ChunkWorker comm_thread([&] { backend_.enter_thread(); }, [&](std::size_t) { gather_layer(next); });
  const auto poison = [&](void* buffer, std::size_t bytes) {
    const std::vector<std::byte> nan_bytes(bytes, std::byte{0xFF});
    mem.copy(buffer, nan_bytes.data(), bytes);
  };
  for (auto& b : buffers) poison(b->data(), DF * es);
  for (auto& zl : zs) poison(zl->data(), rows * F * es);
  mem.synchronize();
  run.t_prefetch = timed("T_prefetch", [&] {
    next = 0;
    comm_thread.submit(0);
    comm_thread.wait();
    for (std::size_t l = 0; l < L; ++l) {
      // Layer l + 1's gather fills the buffer layer l - 1 read, whose GEMM has ended.
      if (l + 1 < L) {
        next = l + 1;
        comm_thread.submit(0);
      }
      run_gemm(l);
      if (l + 1 < L) comm_thread.wait();
    }
  });
  if (plan_.check) {
    std::vector<LocalCheck> local;
    std::vector<std::byte> host(std::max(rows * F, DF) * es + 1);
    for (std::size_t l = 0; l < L; ++l) {
      mem.copy(host.data(), zs[l]->data(), rows * F * es);
      mem.synchronize();
      local.push_back(check_product_block(host.data(), plan_.type, plan_.seed, layer_seed(l), B, D, F,
                                          first_row * F, rows * F, 1));
    }
    // The last two layers' weights are still in their buffers.
    for (std::size_t l = L >= 2 ? L - 2 : 0; l < L; ++l) {
      mem.copy(host.data(), buffers[l % 2]->data(), DF * es);
      mem.synchronize();
      local.push_back(check_gathered_weight(host.data(), plan_.type, layer_seed(l), D, F));
    }
    run.check = agreed_check(comm_, local);
  }
  return run;
}

}  // namespace shardroof::sweep
