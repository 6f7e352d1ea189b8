#include "measure/coll_expectation.h"

#include <fmt/format.h>

#include <algorithm>

#include "collectives/blocks.h"
#include "collectives/check_pattern.h"
#include "collectives/segments.h"
#include "collectives/traits.h"
#include "link/link_summary.h"
#include "link/ring_probe.h"
#include "link/two_level_links.h"
#include "measure/native_library.h"
#include "link/two_level_probe.h"
#include "timing/timing.h"
#include "util/error.h"
#include "util/units.h"

namespace shardroof {
namespace {

using coll::CollectiveKind;

std::uint64_t block_bytes(std::uint64_t bytes, std::size_t es, int n) {
  return coll::BlockPartition(bytes / es, n).max_size() * es;
}

// The probe's timing: a short look, not a benchmark of its own.
TimingPlan probe_timing(const TimingPlan& t) { return {std::min(t.warmup, 2), std::max(10, std::min(t.iters, 20))}; }

// g and c on these ranks' memory: the collectives' own reduction over
// `count` elements and a copy of `bytes`, every rank at once.
void measure_local_rates(CommSetup& setup, MPI_Comm comm, coll::DataType type, std::size_t count,
                         std::uint64_t bytes, const TimingPlan& timing, model::CollLink& link) {
  coll::MemoryOps& memory = setup.memory();
  const std::size_t es = coll::size_of(type);
  count = std::max<std::size_t>(count, 1);
  bytes = std::max<std::uint64_t>(bytes, es);
  auto a = memory.allocate(count * es), b = memory.allocate(count * es), dst = memory.allocate(bytes);
  auto src = memory.allocate(bytes);
  // Not zeros: a reduction of denormal or special values can run at another rate.
  {
    std::vector<std::byte> host(std::max<std::size_t>(count * es, bytes));
    coll::fill_pattern(host.data(), count, 0, 0, 2, type, coll::ReduceOp::Sum);
    memory.copy(a->data(), host.data(), count * es);
    memory.copy(b->data(), host.data(), count * es);
    memory.copy(src->data(), host.data(), bytes);
    memory.synchronize();
  }
  HostClock clock;
  const TimeStats red = measure(comm, timing, clock, [&](int) {
    memory.reduce(dst->data(), a->data(), b->data(), count, type, coll::ReduceOp::Sum);
    memory.synchronize();
  });
  const TimeStats copy = measure(comm, timing, clock, [&](int) {
    memory.copy(dst->data(), src->data(), bytes);
    memory.synchronize();
  });
  link.g_s_per_byte = red.median / static_cast<double>(count * es);
  link.copy_s_per_byte = copy.median / static_cast<double>(bytes);
}

// What the row ran: its impl, or for auto what auto chose ("auto:direct/mpi").
std::optional<coll::Algorithm> ran_impl(const CollRecord& r) {
  const auto impl = coll::parse_algorithm(r.impl);
  if (!impl || *impl != coll::Algorithm::Auto) return impl;
  const std::string prefix = r.impl + ":";
  if (r.algorithm.rfind(prefix, 0) != 0) return std::nullopt;
  const std::string chosen = r.algorithm.substr(prefix.size(), r.algorithm.find('/') - prefix.size());
  if (const auto own = coll::parse_algorithm(chosen); own && *own != coll::Algorithm::Auto) return own;
  return coll::Algorithm::Native;  // "mpi", "nccl": the library's own
}

// The bytes one message of the row's implementation carries: what the
// probe's W is read at.
std::uint64_t message_bytes(const CollRecord& r, coll::Algorithm impl, const CollModelInputs& in, std::uint64_t segments) {
  const std::size_t es = coll::size_of(r.type);
  const int n = in.nranks;
  switch (r.kind) {
    case CollectiveKind::Broadcast: return r.bytes / std::max<std::uint64_t>(segments, 1);
    case CollectiveKind::AllToAll: return r.bytes / static_cast<std::uint64_t>(n);
    case CollectiveKind::AllReduce:
      if (impl == coll::Algorithm::Direct) return r.bytes;
      return block_bytes(r.bytes, es, n);
    default: return block_bytes(r.bytes, es, n);
  }
}

std::uint64_t broadcast_segments(const CollRecord& r, const CollModelInputs& in) {
  const std::size_t es = coll::size_of(r.type);
  const std::size_t count = r.bytes / es;
  if (count == 0) return 1;
  // As collectives/broadcast.cpp: on two ranks one segment.
  const std::size_t cap = in.nranks == 2 ? count * es : in.segment_cap_bytes;
  const std::size_t seg = coll::segment_elements(count, es, in.pinned_segment_bytes, cap);
  return coll::segment_count(count, seg);
}

}  // namespace

CollModelChoice choose_coll_model(const CollModelFlags& f) {
  CollModelChoice c;
  if (f.model == "off") {
    c.source = CollModelChoice::Source::Off;
  } else if (f.model != "probe") {
    throw_usage("--model: unknown '{}' (probe, off)", f.model);
  }
  if (!f.link.empty() && f.hw.empty()) throw_usage("--link {}: names a link of --hw PRESET", f.link);
  if (!f.link_from.empty() && !f.hw.empty()) throw_usage("--link-from and --hw: give one source of the link");
  if (c.source == CollModelChoice::Source::Off && (!f.link_from.empty() || !f.hw.empty()))
    throw_usage("--model off: no link to take (--link-from, --hw)");
  // A model gate needs the model column, which --tune-to does not measure.
  if (f.expect_busbw.rfind("model:", 0) == 0 && (c.source == CollModelChoice::Source::Off || f.tuning))
    throw_usage("--expect-busbw {}: needs the model column ({})", f.expect_busbw,
                !f.tuning ? "not with --model off" : "--tune-to measures none");
  if (!f.link_from.empty()) {
    link::load_link_fit(f.link_from);
    c.source = CollModelChoice::Source::LinkFile;
    c.link_file = f.link_from;
  }
  if (!f.hw.empty()) {
    model::load_hardware_preset(f.hw).link(f.link);
    c.source = CollModelChoice::Source::Preset;
    c.hw = f.hw;
    c.link = f.link;
  }
  return c;
}

CollModelInputs measure_coll_model(CommSetup& setup, MPI_Comm comm, const CollPlan& plan,
                                   const std::vector<int>& node_of_rank, int ranks_per_node,
                                   const CollModelChoice& choice) {
  CollModelInputs in;
  int n = 1;
  MPI_Comm_size(comm, &n);
  in.nranks = n;
  in.ranks_per_node = ranks_per_node;
  in.pinned_segment_bytes = plan.ring.segment_bytes;
  in.segment_cap_bytes = setup.memory().max_segment_bytes();
  const std::size_t es = coll::size_of(plan.type);
  const std::uint64_t largest = plan.sizes.empty() ? es : std::max<std::uint64_t>(plan.sizes.back(), es);
  if (choice.source == CollModelChoice::Source::Off) {
    in.source = "none (--model off)";
    return in;
  }
  if (choice.source == CollModelChoice::Source::Preset) {
    const model::HardwarePreset hw = model::load_hardware_preset(choice.hw);
    const model::LinkPreset& l = hw.link(choice.link);
    in.link.W_bytes_per_s = l.bytes_per_s;
    in.link.alpha_s = l.latency_s;
    in.source = fmt::format("preset {} {} (W {:.4g} GB/s, a {:.3g} us; g = 0)", hw.name, l.name, l.bytes_per_s / 1e9,
                            l.latency_s * 1e6);
    in.preset = hw.name;
    in.published = hw.published;
    // hier's two levels: the link between nodes is the preset's slowest
    // other link; inside a node, --link, unless it names that link (the
    // one-level rows then run at the slower level, as the flat ring does
    // across nodes), when it is the preset's default link.
    const model::LinkPreset& inter = hw.link(hw.default_inter_link());
    const model::LinkPreset& intra = l.name == inter.name ? hw.link("") : l;
    model::CollLink two = in.link;
    two.W_bytes_per_s = intra.bytes_per_s;
    two.alpha_s = intra.latency_s;
    two.inter_W_bytes_per_s = inter.bytes_per_s;
    two.inter_alpha_s = inter.latency_s;
    in.hier_link = two;
    return in;
  }
  if (n < 2) {
    in.source = "none (one rank: nothing crosses a link)";
    return in;
  }
  // The library's algorithm for native rows (a preset's rows above are
  // another machine's, whose library is not this one).
  in.native = read_native_library(setup.transport().name());
  const TimingPlan timing = probe_timing(plan.timing);
  measure_local_rates(setup, comm, plan.type, block_bytes(largest, es, n) / es, largest, timing, in.link);
  if (choice.source == CollModelChoice::Source::LinkFile) {
    const link::ModelLink l = link::load_link_fit(choice.link_file);
    in.link.W_bytes_per_s = l.W_bytes_per_s;
    in.link.alpha_s = l.alpha_s;
    in.source = fmt::format("--link-from {} (pattern {}, medians over {} pairs)", choice.link_file, l.pattern, l.pairs);
    return in;
  }
  // The ring probe at every block size the plan's ring steps move.
  std::vector<std::uint64_t> sizes{es};
  for (const auto bytes : plan.sizes)
    if (const auto b = block_bytes(bytes, es, n); b > 0) sizes.push_back(b);
  // One more above the largest block, so that it too has a pair above it
  // (probe_W_at): twice the block, at most the largest size S.
  if (const auto b = block_bytes(largest, es, n); b > 0) sizes.push_back(std::min<std::uint64_t>(2 * b, largest));
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  link::RingProbePlan probe{sizes, timing};
  probe.fresh_send = true;  // a ring step sends what its reduction just wrote (sweep/runner.cpp)
  const link::RingProbeResult r = link::measure_ring_probe(setup.transport(), setup.memory(), comm, probe);
  in.probe_bytes = r.bytes;
  for (const auto& t : r.step_time) in.probe_step_s.push_back(t.median);
  if (r.fit.valid) {
    in.link.W_bytes_per_s = r.fit.W_bytes_per_s;
    in.link.alpha_s = r.fit.alpha_s;
  } else if (!in.probe_bytes.empty() && in.probe_step_s.back() > 0) {
    in.link.W_bytes_per_s = static_cast<double>(in.probe_bytes.back()) / in.probe_step_s.back();
  }
  in.source = "ring probe on these ranks, W at each row's message size";
  const bool hier = std::find(plan.impls.begin(), plan.impls.end(), coll::Algorithm::Hier) != plan.impls.end();
  if (hier) {
    const auto two = link::measure_two_level_probe(setup.transport(), setup.memory(), comm, node_of_rank,
                                                    largest / es, es, timing);
    if (two && two->intra.fit.valid && two->inter.fit.valid) {
      // As the sweep's two-level model (link/two_level_links.h): one
      // flow's link across the nodes, the fastest of each ring across alone
      // and the whole ring's probe above, shared by R rings. The concurrent
      // probe's own W is not hier's share: it read 14-59 MB/s for a 62 MB/s
      // share between runs, and the model with it read hier 1.9-2.4x slower
      // than it ran.
      const link::TwoLevelLinks levels = link::two_level_links(*two, {in.link.W_bytes_per_s, in.link.alpha_s});
      model::CollLink l = in.link;
      l.W_bytes_per_s = levels.intra.bytes_per_s;
      l.alpha_s = levels.intra.latency_s;
      l.inter_W_bytes_per_s = levels.inter.bytes_per_s;
      l.inter_alpha_s = levels.inter.latency_s;
      l.inter_ranks_per_link = levels.ranks_per_inter_link;
      in.hier_link = l;
    }
  }
  return in;
}

double probe_W_at(const CollModelInputs& in, std::uint64_t bytes) {
  const double fit_W = in.link.W_bytes_per_s;
  const std::size_t n = std::min(in.probe_bytes.size(), in.probe_step_s.size());
  // Index 0 is the one-element size, for the latency: the pairs start at 1.
  if (n < 3) return fit_W;
  // The pair from the largest probed size at or below the message up to the
  // next one (the last pair beyond them): the time each further byte costs
  // from this size on. A head start that every size gets (a shaped link's
  // burst, a NIC's start-up) cancels out of it, and so does a burst that
  // only small messages enjoy, since back-to-back steps do not enjoy it
  // either; the caches' change of rate with size does not.
  std::size_t j = 1;
  while (j + 1 < n && in.probe_bytes[j + 1] <= bytes) ++j;
  if (j + 1 >= n) j = n - 2;
  const double dm = static_cast<double>(in.probe_bytes[j + 1]) - static_cast<double>(in.probe_bytes[j]);
  const double dt = in.probe_step_s[j + 1] - in.probe_step_s[j];
  // A slope that is not positive (noise between close sizes) says nothing.
  return dm > 0 && dt > 0 ? dm / dt : fit_W;
}

std::optional<CollExpected> expected_for(const CollRecord& r, const CollModelInputs& in) {
  if (!(in.link.W_bytes_per_s > 0)) return std::nullopt;
  const auto impl = ran_impl(r);
  if (!impl) return std::nullopt;
  model::CollCall call{r.kind, *impl, in.nranks, r.bytes, r.in_place, in.ranks_per_node, 1};
  if (r.kind == CollectiveKind::Broadcast) call.segments = broadcast_segments(r, in);
  model::CollLink link = in.link;
  std::string source = in.source;
  if (*impl == coll::Algorithm::Hier) {
    if (!in.hier_link) return std::nullopt;
    link = *in.hier_link;
    if (!in.probe_bytes.empty())
      source = fmt::format("two-level ring probe on these ranks (fitted W inside a node; across, one flow's W_o shared "
                           "by R = {})",
                           link.inter_ranks_per_link);
  } else if (!in.probe_bytes.empty()) {
    const std::uint64_t m = message_bytes(r, *impl, in, call.segments);
    link.W_bytes_per_s = probe_W_at(in, m);
    source = fmt::format("ring probe on these ranks at {} messages", format_bytes(m));
  }
  const auto cost = model::collective_cost(call, link);
  if (!cost) return std::nullopt;
  CollExpected e;
  e.time_s = cost->time_s;
  e.busbw_GBps = cost->busbw_bytes_per_s / 1e9;
  e.formula = cost->formula;
  if (*impl == coll::Algorithm::Native) {
    // The library's own algorithm where it can be known; otherwise the
    // bound above, marked so.
    const model::NativeModel native = model::native_model(
        {r.kind, in.nranks, r.bytes, coll::size_of(r.type), r.in_place}, in.native, link);
    e.native_algorithm = native.algorithm;
    if (native.cost) {
      e.time_s = native.cost->time_s;
      e.busbw_GBps = native.cost->busbw_bytes_per_s / 1e9;
      e.formula = native.cost->formula;
    } else {
      e.bound_only = true;
      e.bound_reason = native.bound_reason;
      e.formula = "bound only (" + native.bound_reason + "): " + cost->formula;
    }
  }
  e.W_bytes_per_s = link.W_bytes_per_s;
  e.alpha_s = link.alpha_s;
  e.g_s_per_byte = link.g_s_per_byte;
  e.source = source;
  for (const auto& p : in.published) {
    if (p.collective == coll::to_string(r.kind) && p.ranks == in.nranks) {
      e.published_busbw_GBps = p.busbw_bytes_per_s / 1e9;
      e.published_source = fmt::format("{} {} ranks over {} ({}): {}", in.preset, p.ranks, p.link, p.algorithm, p.source);
      break;
    }
  }
  return e;
}

void attach_expected(std::vector<CollRecord>& records, const CollModelInputs& in) {
  for (auto& r : records) r.expected = expected_for(r, in);
}

}  // namespace shardroof
