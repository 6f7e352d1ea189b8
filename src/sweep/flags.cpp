#include "sweep/flags.h"

#include <fmt/format.h>

#include <climits>
#include <initializer_list>
#include <string>

#include "cli/values.h"
#include "collectives/algorithms.h"
#include "sweep/overlap_model.h"
#include "sweep/runner.h"
#include "util/error.h"

namespace shardroof::sweep {
namespace {

// What --datatype takes: the types with a GEMM.
constexpr std::initializer_list<coll::DataType> kSweepDataTypes = {coll::DataType::Float, coll::DataType::Double,
                                                                   coll::DataType::BFloat16};

// What auto times on one rank (no communication, so no crossover to search).
constexpr const char* kOneRankValues = "16:1024:x2";

bool given(const CLI::App& app, const char* flag) { return app.count(flag) > 0; }

// A single positive integer up to INT_MAX (a dimension every rank holds whole).
std::size_t whole_dimension(const std::string& text, const char* flag, const char* why) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos)
    throw_usage("{}: {}; got '{}'", flag, why, text);
  const unsigned long long v = std::stoull(text);
  if (v < 1 || v > INT_MAX) throw_usage("{}: must be between 1 and {}, got {}", flag, INT_MAX, v);
  return static_cast<std::size_t>(v);
}

// The flags only one sharding case has, refused in the other where given.
void refuse_other_case_flags(const SweepFlags& f, const CLI::App& app, bool fsdp) {
  if (fsdp) {
    if (given(app, "--collective") && f.collective != "all_gather")
      throw_usage("--collective {}: reduces partial sums after the matmul, which only the contracting case has; "
                  "with --sharding fsdp the exchange is the AllGather of the weights",
                  f.collective);
    if (given(app, "--ranks-per-node"))
      throw_usage("--ranks-per-node: groups the ranks into nodes for --impl hier's two levels, which only the "
                  "contracting case has (--sharding contracting)");
    if (given(app, "--levels"))
      throw_usage("--levels: groups the nodes into levels for hier and D* per level, which only the contracting "
                  "case has (--sharding contracting)");
    if (given(app, "--model-hw") || given(app, "--model-link"))
      throw_usage("--model-hw: sets the contracting case's D* beside a preset; for the fsdp case run `shardroof "
                  "predict --sharding fsdp --hw NAME`");
    if (f.overlap != "1" && f.overlap != "prefetch")
      throw_usage("--overlap {}: chunks of rows of Z are the contracting case's overlap; with --sharding fsdp "
                  "give --overlap prefetch (the next layer's weights gathered during this layer's GEMM)",
                  f.overlap);
    if (given(app, "--overlap-chunks") || given(app, "--overlap-wait"))
      throw_usage("--overlap-chunks and --overlap-wait: how --overlap K cuts and waits in the contracting case; "
                  "the fsdp case's overlap is --overlap prefetch");
    if (given(app, "--layers") && f.overlap != "prefetch")
      throw_usage("--layers: the layers of --overlap prefetch; give --overlap prefetch too");
    return;
  }
  if (f.overlap == "prefetch")
    throw_usage("--overlap prefetch: gathers the next layer's weights, which only the fsdp case has "
                "(--sharding fsdp); the contracting case overlaps in chunks: --overlap K, a list or auto");
  if (given(app, "--layers"))
    throw_usage("--layers: the layers of --overlap prefetch, which only the fsdp case has (--sharding fsdp)");
}

}  // namespace

void add_sweep_flags(CLI::App& app, SweepFlags& f) {
  app.add_option("--sharding", f.sharding,
                 "contracting: D split over the ranks, the partial sums reduced after the matmul (the sweep varies "
                 "D); fsdp: the batch split, the weights gathered before it (the sweep varies B)")
      ->capture_default_str();
  app.add_option("--B", f.B,
                 "Rows of X and Z (the batch). Contracting: one number. Fsdp: the swept batch, auto (search the "
                 "crossover B* and its 95% interval), a list or a range; every value a multiple of the ranks")
      ->capture_default_str();
  app.add_option("--F", f.F, "Columns of Y and Z")->capture_default_str();
  app.add_option("--D", f.D,
                 "The contracting dimension. Contracting: the swept values, auto (search the crossover D* and its "
                 "95% interval), a list 64,128,1000 or a range lo:hi:xK (or lo:hi:+K). Fsdp: one number (default "
                 "1024)")
      ->capture_default_str();
  app.add_option("--layers", f.layers,
                 "With --sharding fsdp --overlap prefetch: layers in a row, each with its own weights, each "
                 "layer's gather running while the one before computes")
      ->capture_default_str();
  app.add_option("--budget-s", f.budget_s,
                 "With auto: seconds the whole run may take; the search starts no measurement that would end later")
      ->capture_default_str();
  app.add_option("--min-span-s", f.min_span_s,
                 "With auto: the rounds at the crossing must spread over at least this many seconds before the "
                 "search may stop (one short window is one sample of the machine's state)")
      ->capture_default_str();
  app.add_option("--min-rounds", f.min_rounds,
                 "With auto: rounds (measurements of the two points around the crossing with the ceilings) before "
                 "the search may stop")
      ->capture_default_str();
  add_datatype_flag(app, f.compute.datatype, kSweepDataTypes);
  app.add_option("--collective", f.collective,
                 "all_reduce | reduce_scatter (contracting; fsdp always gathers: all_gather)")
      ->capture_default_str();
  app.add_option("--impl", f.impl,
                 "ring (ours) | hier (ours, two levels: ring inside each node, rings across nodes) | native (the "
                 "library's) | auto | pairwise | direct")
      ->capture_default_str();
  add_ranks_per_node_flag(app, f.ranks_per_node);
  add_levels_flag(app, f.levels);
  add_backend_flag(app, f.compute.backend);
  app.add_option("--transport", f.transport, "What the collective runs over: mpi | nccl (cuda only)")
      ->capture_default_str();
  add_gemm_flags(app, f.compute);
  add_timing_flags(app, f.timing);
  add_check_flag(app, f.check);
  app.add_option("--seed", f.seed, "Seed of the operands X and Y")->capture_default_str();
  app.add_option("--redraw-buffers", f.redraw_buffers,
                 "1: every measurement (round) allocates its buffers at fresh addresses, so one launch also samples "
                 "what an allocation fixes; 0: where the allocator puts them")
      ->capture_default_str();
  add_segment_bytes_flag(app, f.segment_bytes);
  app.add_option("--overlap", f.overlap,
                 "Contracting: also time the step in K chunks of rows of Z, each chunk's collective overlapping "
                 "the next chunk's GEMM (T_overlap, the pipeline model's prediction and the parts of its gap); a "
                 "list 2,4,8 times each K; auto: the model picks K at each point. Fsdp: prefetch, --layers layers "
                 "with each layer's weights gathered during the GEMM before. 1: not")
      ->capture_default_str();
  app.add_option("--overlap-chunks", f.overlap_chunks,
                 "How --overlap cuts the rows of Z: graded (each chunk T_comm/T_math times the one before, from a "
                 "first look at the point, so the side that takes longer waits least: only the first GEMM or the "
                 "last collective is exposed, and it is the smallest) or even")
      ->capture_default_str();
  app.add_option("--overlap-wait", f.overlap_wait,
                 "How --overlap's communication thread waits for the network: sleep (poll, sleeping between polls, "
                 "so the GEMM keeps its core) or mpi (as every other collective of the run waits: MPI's own wait)")
      ->capture_default_str();
  add_json_flag(app, f.output);
  app.add_option("--link-from", f.link_from,
                 "Take the book model's W and alpha from a `shardroof link --json` FILE instead of the ring probe");
  add_csv_flag(app, f.output);
  add_trace_flag(app, f.output);
  app.add_option("--model-hw", f.model_hw,
                 "Also predict the same shapes on a hardware preset (see `predict --list`), and a hybrid: "
                 "this machine's GEMM with the preset's link (contracting)");
  app.add_option("--model-link", f.model_link, "Link of --model-hw (default: the preset's default link)");
  app.add_option("--history", f.history,
                 "A `shardroof combine` --json record of earlier launches with these settings: the interval is "
                 "also given for the next launch, widened by their launch-to-launch spread");
  add_expect_c_flag(app, f.expect_C);
  add_baseline_flags(app, f.baseline);
}

SweepPlan make_sweep_plan(const SweepFlags& f, const CLI::App& app, int ranks, const NodeMemory& node) {
  SweepPlan plan;
  if (f.sharding == "fsdp") {
    plan.sharding = model::Sharding::Fsdp;
  } else if (f.sharding != "contracting") {
    throw_usage("--sharding: '{}' is not one of contracting, fsdp", f.sharding);
  }
  const bool fsdp = plan.fsdp();
  refuse_other_case_flags(f, app, fsdp);
  if (f.F < 1 || f.F > INT_MAX) throw_usage("--F: must be between 1 and {}, got {}", INT_MAX, f.F);
  plan.F = f.F;
  // The swept values: D (contracting), or the whole batch B (fsdp), which
  // then defaults to auto while D is fixed.
  const char* swept_flag = fsdp ? "--B" : "--D";
  std::string swept = f.D;
  if (fsdp) {
    swept = given(app, "--B") ? f.B : "auto";
    plan.fsdp_D = given(app, "--D") ? whole_dimension(f.D, "--D",
                                                      "with --sharding fsdp D is one number, whole on every rank "
                                                      "(--B sweeps the batch)")
                                    : kFsdpDefaultD;
  } else {
    plan.B = whole_dimension(f.B, "--B",
                             "with --sharding contracting B is one number (--D sweeps; a list or auto of batches "
                             "is the fsdp case's: --sharding fsdp)");
  }
  plan.budget_s = parse_number(f.budget_s, "--budget-s");
  if (!(plan.budget_s > 0)) throw_usage("--budget-s: must be a positive number of seconds, got '{}'", f.budget_s);
  plan.min_span_s = parse_number(f.min_span_s, "--min-span-s");
  if (!(plan.min_span_s >= 0))
    throw_usage("--min-span-s: must be a number of seconds, 0 or more, got '{}'", f.min_span_s);
  if (f.min_rounds < 1) throw_usage("--min-rounds: must be at least 1, got {}", f.min_rounds);
  plan.min_rounds = static_cast<std::size_t>(f.min_rounds);
  // One rank communicates nothing, so there is no crossover to search:
  // auto times the GEMM over a fixed grid instead.
  plan.swept_auto = swept == "auto";
  plan.search = plan.swept_auto && ranks >= 2;
  if (!plan.search) {
    plan.D = parse_int_list(swept == "auto" ? kOneRankValues : swept, swept_flag);
    const auto n = static_cast<std::uint64_t>(ranks);
    for (const auto v : plan.D) {
      if (v / n + 1 > INT_MAX) throw_usage("{}: {} is too large", swept_flag, v);
      if (fsdp && v % n != 0)
        throw_usage("--B: {} does not split over {} ranks: with --sharding fsdp every batch is a multiple of the "
                    "ranks (each rank holds B/N rows)",
                    v, ranks);
    }
  }
  plan.type = datatype_flag(f.compute.datatype, kSweepDataTypes);
  if (fsdp) {
    plan.kind = coll::CollectiveKind::AllGather;
  } else {
    const auto kind = coll::parse_collective(f.collective);
    if (!kind || (*kind != coll::CollectiveKind::AllReduce && *kind != coll::CollectiveKind::ReduceScatter))
      throw_usage("--collective: '{}' is not one of all_reduce, reduce_scatter{}", f.collective,
                  kind == coll::CollectiveKind::AllGather ? " (all_gather is the fsdp case's: --sharding fsdp)" : "");
    plan.kind = *kind;
  }
  const auto impl = coll::parse_algorithm(f.impl);
  if (!impl) throw_usage("--impl: '{}' is not one of ring, hier, native, auto, pairwise, direct", f.impl);
  if (fsdp && !coll::supports(*impl, plan.kind))
    throw_usage("--impl {}: there is no {} all_gather, the exchange of --sharding fsdp (ring, pairwise, native or "
                "auto)",
                f.impl, f.impl);
  plan.impl = *impl;
  plan.backend = backend_flag(f.compute.backend);
  const auto transport = parse_transport(f.transport);
  if (!transport) throw_usage("--transport: '{}' is not one of mpi, nccl", f.transport);
  plan.transport = *transport;
  check_gemm_flags(f.compute, plan.backend);
  plan.threads = f.compute.threads;
  plan.timing = timing_plan(f.timing);
  plan.check = check_enabled(f.check);
  plan.seed = f.seed;
  if (f.redraw_buffers != 0 && f.redraw_buffers != 1)
    throw_usage("--redraw-buffers: must be 0 or 1, got {}", f.redraw_buffers);
  plan.redraw_buffers = f.redraw_buffers == 1;
  plan.ring.segment_bytes = parse_segment_bytes(f.segment_bytes, "--segment-bytes");
  if (fsdp) {
    plan.prefetch.enabled = f.overlap == "prefetch";
    if (f.layers < 2 || f.layers > 64)
      throw_usage("--layers: from 2 to 64 layers (one layer has no next one to prefetch), got {}", f.layers);
    plan.prefetch.layers = f.layers;
  } else {
    plan.overlap = parse_overlap(f.overlap, plan.B, plan.F, ranks, plan.kind);
    if (f.overlap_chunks != "graded" && f.overlap_chunks != "even")
      throw_usage("--overlap-chunks: unknown '{}' (graded, even)", f.overlap_chunks);
    plan.overlap.graded = f.overlap_chunks == "graded";
    if (f.overlap_wait != "sleep" && f.overlap_wait != "mpi")
      throw_usage("--overlap-wait: unknown '{}' (sleep, mpi)", f.overlap_wait);
    plan.overlap.sleeping_waits = f.overlap_wait == "sleep";
  }
  // On a GPU the operands live in device memory: checked once the
  // backend can say how much is free (the command's run()).
  if (plan.backend == Backend::Cpu) budget_memory(plan, ranks, node);
  return plan;
}

}  // namespace shardroof::sweep
