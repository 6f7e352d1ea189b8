#include "measure/coll_runner.h"

#include <cmath>
#include <memory>

#include "collectives/check_pattern.h"
#include "collectives/mpi_transport.h"
#include "collectives/traits.h"
#include "trace/clock_sync.h"
#include "util/error.h"
#include "util/mpi_session.h"
#include "util/units.h"

namespace shardroof {

std::vector<std::uint64_t> coll_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes,
                                      double factor, std::uint64_t step_bytes,
                                      std::size_t element_bytes) {
  std::vector<std::uint64_t> out;
  const auto align = [&](std::uint64_t b) { return b / element_bytes * element_bytes; };
  for (std::uint64_t size = min_bytes; size <= max_bytes;) {
    const auto s = align(size);
    if (out.empty() || out.back() != s) out.push_back(s);
    if (out.size() > kMaxSizes)
      throw_usage("--minbytes {} to --maxbytes {} makes more than {} sizes; use a larger {}", format_bytes(min_bytes),
                  format_bytes(max_bytes), kMaxSizes, step_bytes > 0 ? "--stepbytes" : "--stepfactor");
    std::uint64_t next;
    if (step_bytes > 0) {
      next = size + step_bytes;
    } else {
      next = size == 0 ? element_bytes
                       : static_cast<std::uint64_t>(std::ceil(static_cast<double>(size) * factor));
    }
    if (next <= size) break;  // validated earlier; guards against overflow
    size = next;
  }
  return out;
}

namespace {

// Host staging for filling and checking buffers that may live on a device.
struct Buffers {
  std::unique_ptr<coll::Allocation> send;   // out-of-place input
  std::unique_ptr<coll::Allocation> recv;   // out-of-place output
  std::unique_ptr<coll::Allocation> inplace;
  std::unique_ptr<coll::Allocation> pristine;  // the in-place input, kept to restore it
};

}  // namespace

std::vector<CollRecord> measure_collectives(CommSetup& setup, MPI_Comm comm, const CollPlan& plan,
                                            const std::vector<coll::Algorithm>& impls, std::uint64_t bytes,
                                            trace::Recorder* trace) {
  auto& mem = setup.memory();
  coll::Tracer* const tracer = trace::tracer_of(trace);
  coll::CollectiveOptions ring = plan.ring;
  ring.tracer = tracer;
  std::vector<std::unique_ptr<coll::Collective>> collectives;
  for (const coll::Algorithm impl : impls) collectives.push_back(setup.make(plan.kind, impl, ring));
  const int rank = setup.transport().rank();
  const int n = setup.transport().size();
  const std::size_t es = coll::size_of(plan.type);
  const std::uint64_t count = bytes / es;
  const coll::CollectiveTraits& traits = coll::traits(plan.kind);
  const coll::CallShape shape{count, rank, n, plan.ring.broadcast.root};
  // Element counts of this rank's input and output, and the in-place buffer.
  const std::size_t in_count = traits.input_count(shape);
  const std::size_t out_count = traits.output_count(shape);
  const coll::InPlaceLayout layout = traits.in_place(shape);

  // All memory is made and filled before anything is timed.
  std::vector<std::byte> host(std::max(in_count, out_count) * es + 1);
  Buffers buf;
  buf.send = mem.allocate(in_count * es);
  buf.recv = mem.allocate(out_count * es);
  buf.inplace = mem.allocate(layout.buffer * es);
  buf.pristine = mem.allocate(layout.buffer * es);
  coll::fill_pattern(host.data(), in_count, traits.input_first(shape), rank, n, plan.type, plan.op);
  mem.copy(buf.send->data(), host.data(), in_count * es);
  // In place, the buffer holds the input at the input's place (traits.h).
  std::vector<std::byte> full(layout.buffer * es + 1);
  coll::fill_pattern(full.data(), layout.buffer, 0, rank, n, plan.type, plan.op);
  mem.copy(buf.pristine->data(), full.data(), layout.buffer * es);
  mem.synchronize();

  auto* inplace = static_cast<std::byte*>(buf.inplace->data());
  const void* ip_send = inplace + layout.send_offset * es;
  void* ip_recv = inplace + layout.recv_offset * es;
  // In place, each run consumes its input: it is restored before every
  // iteration (batch), outside the timed region.
  const auto restore = [&] {
    mem.copy(inplace, buf.pristine->data(), layout.buffer * es);
    mem.synchronize();
  };

  HostClock host_clock;
  Clock& clock = host_clock;
  // Arrival skews are taken on rank 0's clock, estimated afresh at each
  // size so that clocks drifting apart over a long run do not add up.
  const AlignedClock aligned = trace::aligned_clock(comm);
  // A span keeps its name as a pointer: to_string views a string literal.
  const char* kind_name = coll::to_string(plan.kind).data();
  const int last = plan.timing.iters - 1;
  std::vector<CollRecord> records(impls.size() * 2);
  for (const bool in_place : {false, true}) {
    const void* s = in_place ? ip_send : buf.send->data();
    void* r = in_place ? ip_recv : buf.recv->data();
    std::vector<IterationFn> ops, prepares;
    std::vector<int> regions(impls.size(), -1);
    for (std::size_t k = 0; k < impls.size(); ++k) {
      CollRecord& rec = records[k * 2 + (in_place ? 1 : 0)];
      rec = {plan.kind, std::string(to_string(impls[k])), setup.describe(impls[k]), plan.type, plan.op,
             in_place, count * es, count, {}, 0, 0, -1};
      coll::Collective* c = collectives[k].get();
      ops.push_back([tracer, kind_name, c, s, r, count, type = plan.type, op = plan.op](int) {
        coll::TraceSpan iteration(tracer, "iteration", "iteration");
        coll::TraceSpan call(tracer, kind_name, "collective", {{"bytes", static_cast<std::int64_t>(count * coll::size_of(type))}});
        c->run(s, r, count, type, op);
      });
      // Before each of this implementation's iterations: its input, and the
      // trace armed for its last timed iteration only, in a region of its own.
      prepares.push_back([&, k, in_place](int it) {
        if (in_place) restore();
        if (!trace) return;
        if (it == last) {
          const CollRecord& rc = records[k * 2 + (in_place ? 1 : 0)];
          regions[k] = trace->begin_region({"coll", std::string(coll::to_string(plan.kind)), rc.algorithm, rc.bytes,
                                            0, 0, in_place ? 1 : 0, last, plan.timing.iters, 0});
        }
        trace->set_recording(it == last);
      });
    }
    const std::vector<TimeStats> times = measure_interleaved(comm, plan.timing, clock, ops, prepares, TurnOrder::Balanced, &aligned);
    if (trace) trace->set_recording(false);
    for (std::size_t k = 0; k < impls.size(); ++k) {
      CollRecord& rec = records[k * 2 + (in_place ? 1 : 0)];
      rec.time = times[k];
      rec.ranks = rank_summaries(rec.time);
      rec.straggler = find_straggler(rec.ranks);
      // `auto` picks by size: record what it ran at this one.
      if (impls[k] == coll::Algorithm::Auto)
        rec.algorithm = collectives[k]->algorithm() + "/" + std::string(setup.transport().name());
      if (trace && regions[k] >= 0) trace->region(regions[k]).algorithm = rec.algorithm;
      const double t = rec.time.median;
      rec.algbw_GBps = t > 0 ? static_cast<double>(rec.bytes) / t / 1e9 : 0;
      rec.busbw_GBps = rec.algbw_GBps * traits.bus_factor(n);
    }
  }

  // Checked outside timing: each implementation runs once more on fresh
  // input (the timed calls shared the output buffers, and in a batch the
  // later in-place calls reduce what the previous one left).
  if (plan.check) {
    for (std::size_t k = 0; k < impls.size(); ++k) {
      for (const bool in_place : {false, true}) {
        const void* s = in_place ? ip_send : buf.send->data();
        void* r = in_place ? ip_recv : buf.recv->data();
        if (in_place) restore();
        SHARDROOF_MPI_CHECK(MPI_Barrier(comm));
        collectives[k]->run(s, r, count, plan.type, plan.op);
        mem.copy(host.data(), r, out_count * es);
        mem.synchronize();
        const auto wrong = coll::count_wrong(host.data(), shape, plan.kind, plan.type, plan.op);
        records[k * 2 + (in_place ? 1 : 0)].wrong = sum_over_ranks(comm, static_cast<long long>(wrong));
      }
    }
  }
  return records;
}

void append_coll_round(CollRecord& into, const CollRecord& more) {
  append_samples(into.time, more.time);
  if (into.wrong >= 0 && more.wrong >= 0)
    into.wrong += more.wrong;
  else if (more.wrong > 0)
    into.wrong = more.wrong;
}

void summarize_coll_record(CollRecord& r, int ranks) {
  resummarize(r.time);
  r.ranks = rank_summaries(r.time);
  r.straggler = find_straggler(r.ranks);
  const double t = r.time.median;
  r.algbw_GBps = t > 0 ? static_cast<double>(r.bytes) / t / 1e9 : 0;
  r.busbw_GBps = r.algbw_GBps * coll::traits(r.kind).bus_factor(ranks);
}

std::vector<CollRecord> measure_collective(CommSetup& setup, MPI_Comm comm, const CollPlan& plan, coll::Algorithm impl,
                                           std::uint64_t bytes, trace::Recorder* trace) {
  return measure_collectives(setup, comm, plan, {impl}, bytes, trace);
}

}  // namespace shardroof
