#include "measure/coll_plan.h"

#include <algorithm>
#include <climits>

#include "cli/values.h"
#include "collectives/traits.h"
#include "util/error.h"
#include "util/memory_budget.h"
#include "util/units.h"

namespace shardroof {
namespace {

// Whether `plan` runs direct (its scratch holds N copies of an AllReduce).
bool measures_direct(const CollPlan& plan, coll::CollectiveKind kind, bool every_impl) {
  if (kind != coll::CollectiveKind::AllReduce) return false;
  if (every_impl) return true;
  return std::find_if(plan.impls.begin(), plan.impls.end(),
                      [](coll::Algorithm i) { return i == coll::Algorithm::Direct || i == coll::Algorithm::Auto; }) != plan.impls.end();
}

// The levels of `topology` that move data (more than one unit in a unit).
std::vector<int> working_levels(const Topology& topology) {
  std::vector<int> working;
  for (const int g : topology.level_sizes)
    if (g > 1) working.push_back(g);
  return working;
}

// When hier ReduceScatter regroups its input (two levels or more move
// data), the size of the first level that does (its scratch), else 0.
int hier_scratch_ranks(const CollPlan& plan, coll::CollectiveKind kind, const Topology& topology) {
  const bool hier = std::find(plan.impls.begin(), plan.impls.end(), coll::Algorithm::Hier) != plan.impls.end();
  const std::vector<int> working = working_levels(topology);
  return hier && working.size() > 1 && kind == coll::CollectiveKind::ReduceScatter ? working.front() : 0;
}

}  // namespace

std::vector<coll::CollectiveKind> coll_kinds(const std::string& text, bool tuning) {
  std::vector<coll::CollectiveKind> kinds;
  if (tuning && text == "all") {
    for (const auto& t : coll::all_collectives()) kinds.push_back(t.kind);
    return kinds;
  }
  for (const std::string_view name : split_list(text)) {
    const auto kind = coll::parse_collective(name);
    if (!kind) throw_usage("--collective: unknown '{}' ({})", name, coll::collective_names());
    if (std::find(kinds.begin(), kinds.end(), *kind) == kinds.end()) kinds.push_back(*kind);
  }
  if (kinds.size() > 1 && !tuning)
    throw_usage("--collective: one collective at a time ('{}'); a list only with --tune-to", text);
  return kinds;
}

std::vector<coll::Algorithm> parse_coll_impls(const std::string& text, coll::CollectiveKind kind) {
  // all: auto, our main algorithm, native.
  if (text == "all")
    return {coll::Algorithm::Auto, coll::traits(kind).algorithms.front().algorithm, coll::Algorithm::Native};
  std::vector<coll::Algorithm> impls;
  for (const std::string_view name : split_list(text)) {
    const auto impl = coll::parse_algorithm(name);
    if (!impl) throw_usage("--impl: unknown '{}' (auto, ring, pairwise, direct, hier, native, all, or a list like auto,native)", name);
    if (!coll::supports(*impl, kind))
      throw_usage("--impl {}: there is no {} {}", name, name, coll::to_string(kind));
    impls.push_back(*impl);
  }
  return impls;
}

void add_or_check_hier(CollPlan& plan, const Topology& topology, bool impl_all) {
  const bool reduce_scatter = plan.kind == coll::CollectiveKind::ReduceScatter;
  const std::string why = hier_unavailable_reason(topology, reduce_scatter);
  auto& impls = plan.impls;
  if (std::find(impls.begin(), impls.end(), coll::Algorithm::Hier) != impls.end()) {
    if (!why.empty()) throw_usage("--impl hier: {}", why);
    return;
  }
  if (impl_all && why.empty() && coll::supports(coll::Algorithm::Hier, plan.kind) &&
      working_levels(topology).size() > 1)
    impls.insert(std::find(impls.begin(), impls.end(), coll::Algorithm::Native), coll::Algorithm::Hier);
}

void check_native_limits(const CollPlan& plan, int nranks, bool every_impl) {
  const bool native = every_impl || std::find(plan.impls.begin(), plan.impls.end(), coll::Algorithm::Native) != plan.impls.end();
  if (!native) return;
  const std::size_t es = coll::size_of(plan.type);
  for (const auto bytes : plan.sizes) {
    if (coll::traits(plan.kind).mpi_int_argument(bytes / es, nranks, es) > static_cast<std::uint64_t>(INT_MAX))
      throw_usage("--impl {}: native MPI {} cannot move {} on {} ranks (MPI counts are ints); "
                  "use --impl {} or a smaller --maxbytes",
                  to_string(coll::Algorithm::Native), coll::to_string(plan.kind), format_bytes(bytes), nranks,
                  coll::to_string(coll::traits(plan.kind).algorithms.front().algorithm));
  }
}

std::uint64_t coll_bytes_needed(const CollPlan& plan, const std::vector<coll::CollectiveKind>& kinds, int nranks,
                                const Topology& topology, bool every_impl) {
  std::uint64_t need = 0;
  if (plan.sizes.empty()) return need;
  for (const auto kind : kinds)
    need = std::max(need, coll_bytes_per_rank(kind, plan.sizes.back(), coll::size_of(plan.type), nranks,
                                              measures_direct(plan, kind, every_impl),
                                              hier_scratch_ranks(plan, kind, topology)));
  return need;
}

std::uint64_t coll_bytes_per_rank(coll::CollectiveKind kind, std::uint64_t bytes, std::size_t es, int nranks,
                                  bool direct, int hier_k) {
  const coll::CollectiveTraits& t = coll::traits(kind);
  const coll::CallShape rank0{bytes / es, 0, nranks};
  const std::uint64_t in = saturating_mul(t.input_count(rank0), es);
  const std::uint64_t out = saturating_mul(t.output_count(rank0), es);
  const std::uint64_t buffer = saturating_mul(t.in_place(rank0).buffer, es);
  std::uint64_t total = saturating_add(in, out);
  total = saturating_add(total, saturating_mul(buffer, 2));                  // in place, pristine
  total = saturating_add(total, saturating_add(std::max(in, out), buffer));  // host staging, full pattern
  // The segmented collectives' receive slots: pairwise's hold the input's
  // size, the ring's a block (collectives/pairwise.h, ring_reduce_scatter.h).
  total = saturating_add(total, bytes);
  if (direct) total = saturating_add(total, saturating_mul(bytes, static_cast<std::uint64_t>(nranks)));
  if (hier_k > 0) {
    const std::uint64_t piece = (bytes / es + static_cast<std::uint64_t>(hier_k) - 1) / static_cast<std::uint64_t>(hier_k);
    total = saturating_add(total, saturating_add(bytes, saturating_mul(piece, es)));
  }
  return saturating_add(total, buffer);
}

}  // namespace shardroof
