// `shardroof coll`: nccl-tests-style collective benchmark over a size sweep,
// and (--tune-to FILE) the measurement that writes the tuning table of `auto`.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/values.h"
#include "collectives/algorithms.h"
#include "collectives/traits.h"
#include "collectives/types.h"
#include "commands/backends.h"
#include "commands/environment.h"
#include "commands/gate_run.h"
#include "commands/run_output.h"
#include "measure/coll_expectation.h"
#include "measure/coll_plan.h"
#include "measure/coll_rounds.h"
#include "measure/coll_runner.h"
#include "measure/coll_stability.h"
#include "measure/comm_setup.h"
#include "report/answer.h"
#include "report/bringup.h"
#include "report/coll_report.h"
#include "tuning/tuning.h"
#include "util/agreement.h"
#include "util/error.h"
#include "util/memory_budget.h"
#include "util/mpi_session.h"
#include "util/node.h"
#include "util/topology.h"
#include "util/units.h"
#include "util/watchdog.h"

namespace shardroof {
namespace {

struct CollFlags {
  std::string collective = "all_reduce";
  std::string minbytes = "8";
  std::string maxbytes = "8M";
  std::string stepfactor = "4";
  std::string stepbytes = "0";
  TimingFlags timing{5, 20};
  int check = 1;
  ComputeFlags compute;
  std::string op = "sum";
  std::string impl = "all";
  std::string transport = "mpi";
  std::string segment_bytes = "auto";
  std::string timing_mode = "per-iteration";
  std::string rounds = "auto";
  std::string min_span_s = "10";
  int batch = 20;
  int root = 0;
  int ranks_per_node = 0;
  std::string levels;
  std::string tuning;
  std::string tune;
  std::vector<std::string> tune_from;
  OutputFlags output;
  std::string expect_busbw;
  std::string expect_from;
  BaselineFlags baseline;
  std::string model = "probe";
  std::string link_from;
  std::string hw;
  std::string link;
};

// What --datatype takes: every type the collectives reduce.
constexpr std::initializer_list<coll::DataType> kCollDataTypes = {coll::DataType::Float, coll::DataType::Double,
                                                              coll::DataType::BFloat16, coll::DataType::Half,
                                                              coll::DataType::Int32};

// Passes over the sizes by default: enough windows per size (with the
// default 20 iterations, 4 blocks each) for a change-point test, and a
// spread over time that one pass does not have.
constexpr int kDefaultRounds = 5;

int parse_rounds(const std::string& text) {
  const double v = parse_number(text, "--rounds");
  if (!(v >= 1 && v <= 1000 && v == std::floor(v)))
    throw_usage("--rounds: a whole number of passes from 1 to 1000, or auto, got '{}'", text);
  return static_cast<int>(v);
}

class CollCommand final : public Command {
 public:
  std::string name() const override { return "coll"; }
  std::string description() const override {
    return "nccl-tests-style collective benchmark: ours vs native over a size sweep (--tune-to: write auto's table)";
  }

  void add_options(CLI::App& app) override {
    collective_opt_ = app.add_option("--collective", f_.collective,
                                     fmt::format("One of {} (with --tune-to: a comma-separated list, or all, the "
                                                 "default there)",
                                                 coll::collective_names()))
                          ->capture_default_str();
    app.add_option("-b,--minbytes", f_.minbytes, "Smallest size S in bytes (K/M/G suffixes)")->capture_default_str();
    app.add_option("-e,--maxbytes", f_.maxbytes, "Largest size S in bytes")->capture_default_str();
    app.add_option("-f,--stepfactor", f_.stepfactor, "Multiply the size by this factor each step")->capture_default_str();
    app.add_option("-i,--stepbytes", f_.stepbytes, "Add this many bytes each step instead (0: use -f)")->capture_default_str();
    add_timing_flags(app, f_.timing);
    add_check_flag(app, f_.check);
    add_datatype_flag(app, f_.compute.datatype, kCollDataTypes);
    app.add_option("-o,--op", f_.op, "sum | prod | max | min | avg")->capture_default_str();
    app.add_option("--impl", f_.impl,
                   "auto | ring | pairwise | direct | hier | native, a comma-separated list, or all (auto, our main "
                   "algorithm and native side by side: auto,ring,native; all_to_all: auto,pairwise,native; "
                   "all_reduce and reduce_scatter over several nodes of several ranks: hier too)")
        ->capture_default_str();
    add_backend_flag(app, f_.compute.backend);
    app.add_option("--transport", f_.transport, "mpi | nccl (with --backend cuda)")->capture_default_str();
    add_segment_bytes_flag(app, f_.segment_bytes);
    app.add_option("--timing", f_.timing_mode,
                   "per-iteration (a barrier before every call) | batched (--batch back-to-back calls per barrier, "
                   "time per call averaged: what OSU and nccl-tests report)")
        ->capture_default_str();
    app.add_option("--batch", f_.batch, "Calls per timed iteration with --timing batched")->capture_default_str();
    app.add_option("--rounds", f_.rounds,
                   fmt::format("Passes over the sizes, each row aggregating all of them: the measurement spreads "
                               "over time and every size is tested for a change of state; auto: {} ({} with "
                               "--tune-to)",
                               kDefaultRounds, 1))
        ->capture_default_str();
    app.add_option("--min-span-s", f_.min_span_s,
                   "More rounds than --rounds until the rounds spread over at least this many seconds (one short "
                   "window is one sample of the machine's state); 0: exactly --rounds (with --tune-to: 0)")
        ->capture_default_str();
    app.add_option("-r,--root", f_.root, "Root rank of broadcast")->capture_default_str();
    add_ranks_per_node_flag(app, f_.ranks_per_node);
    add_levels_flag(app, f_.levels);
    app.add_option("--tuning", f_.tuning, "Tuning table (TOML) that --impl auto chooses by (default: the built-in one)");
    // Not `--tune FILE`: Open MPI's launcher takes `--tune FILE` in a
    // program's arguments (after `-n N`) as its own parameter file.
    app.add_option("--tune-to", f_.tune,
                   "Measure every implementation (native included) at every size and write auto's tuning table to "
                   "FILE; rules of FILE for other rank counts, collectives or sizes are kept");
    app.add_option("--tune-from", f_.tune_from,
                   "With --tune-to: measure nothing, and write the table from these earlier runs' coll --json "
                   "documents instead (two launches or more; each size takes the implementation whose worst loss "
                   "over the launches is least)")
        ->delimiter(',');
    add_json_flag(app, f_.output);
    add_trace_flag(app, f_.output);
    add_expect_flag(app, "--expect-busbw", f_.expect_busbw,
                    "Least busbw of every implementation and placement at the sizes from --expect-from", true);
    app.add_option("--expect-from", f_.expect_from,
                   "Smallest size --expect-busbw applies to, in bytes (default: a tenth of the largest size; "
                   "smaller sizes are latency-bound)");
    add_baseline_flags(app, f_.baseline);
    add_model_flags(app);
  }

  int run(RunContext& ctx) override {
    if (!f_.tune_from.empty()) return tune_from_documents(ctx, f_.tune, f_.tuning, f_.tune_from);
    CollPlan plan;
    std::vector<coll::CollectiveKind> kinds;
    Backend backend = Backend::Cpu;
    TransportKind transport = TransportKind::Mpi;
    auto table = std::make_shared<coll::TuningTable>();
    std::string table_source = "built in";
    std::vector<GateExpectation> expectations;
    CollModelChoice model_choice;
    const NodeMemory node = node_memory(ctx.mpi.world());
    Topology topology = discover_topology(ctx.mpi.world());
    run_agreed(ctx.mpi.world(), [&] {
      plan = make_plan();
      topology = with_levels(with_ranks_per_node(topology, f_.ranks_per_node), f_.levels);
      plan.ring.hier.node_of_rank = topology.node_of_rank;
      plan.ring.hier.group_of_rank = topology.group_of_rank;
      if (f_.tune.empty()) add_or_check_hier(plan, topology, f_.impl == "all");
      if (f_.root < 0 || f_.root >= ctx.mpi.size())
        throw_usage("--root: {} is not a rank (0 to {})", f_.root, ctx.mpi.size() - 1);
      plan.ring.broadcast.root = f_.root;
      kinds = make_kinds();
      plan.kind = kinds.front();
      backend = backend_flag(f_.compute.backend);
      transport = *parse_transport(f_.transport);
      for (const auto kind : kinds) {
        CollPlan p = plan;
        p.kind = kind;
        check_native_limits(p, ctx.mpi.size(), !f_.tune.empty());
      }
      if (!plan.sizes.empty())
        require_memory(node, coll_bytes_needed(plan, kinds, ctx.mpi.size(), topology, !f_.tune.empty()),
                       fmt::format("--maxbytes {} ({})", f_.maxbytes, format_bytes(plan.sizes.back())));
      *table = f_.tuning.empty() ? builtin_tuning_table() : read_tuning_file(f_.tuning);
      if (!f_.tuning.empty()) table_source = f_.tuning;
      expectations = busbw_expectations(f_.expect_busbw, f_.expect_from, plan.sizes);
      model_choice = choose_coll_model({f_.model, f_.link_from, f_.hw, f_.link, f_.expect_busbw, !f_.tune.empty()});
    });
    RunOutput out = RunOutput::agree(ctx, "coll", "sizes", {f_.output.json, "", f_.output.trace, false});
    // The tuning table written is updated in place: checked, never renamed.
    if (!f_.tune.empty()) {
      run_agreed(ctx.mpi.world(), [&] {
        if (ctx.mpi.is_root()) check_tuning_output(f_.tune, ctx.force, "--tune-to");
      });
    }
    std::unique_ptr<CommSetup> setup;
    run_agreed(ctx.mpi.world(), [&] { setup = make_comm_setup(backend, transport, ctx.mpi.world()); });
    // The model column's link, measured before the collectives (--model).
    // hier over more than two levels has no model here (the two-level one
    // would price every level above the node as the link between nodes):
    // no two-level probe, and its rows go without.
    const bool two_levels = topology.group_of_rank.empty();
    CollModelInputs model_in =
        f_.tune.empty() ? measure_coll_model(*setup, ctx.mpi.world(), plan,
                                             two_levels ? topology.node_of_rank : std::vector<int>{},
                                             topology.nodes > 1 ? topology.ranks_per_node : 0, model_choice)
                        : CollModelInputs{};
    if (!two_levels) model_in.hier_link.reset();
    const int rounds = f_.rounds == "auto" ? (f_.tune.empty() ? kDefaultRounds : 1) : parse_rounds(f_.rounds);
    const double min_span_s = f_.tune.empty() ? parse_number(f_.min_span_s, "--min-span-s") : 0.0;
    trace::Recorder* recorder = out.start_trace();
    out.begin_document({{"ranks", ctx.mpi.size()},
                        {"settings", coll_settings_json(plan, {kinds, rounds, min_span_s, f_.impl, f_.compute.backend,
                                                               f_.transport, f_.stepfactor, f_.stepbytes, table_source,
                                                               f_.tune, f_.ranks_per_node,
                                                               two_levels ? std::vector<int>{} : topology.level_sizes})},
                        {"aggregation", aggregation_note(plan.timing)},
                        {"topology", topology_json(topology)},
                        {"results", nlohmann::json::array()}});
    nlohmann::json& doc = out.document();
    doc["model"] = coll_model_json(model_in);
    RunGate gate(ctx, f_.baseline, std::move(expectations), doc);

    // Rules measured elsewhere (transport, backend, number of hosts) are not used.
    const std::set<std::string> hosts(doc["environment"]["hosts"].begin(), doc["environment"]["hosts"].end());
    const TuningScope scope{std::string(to_string(transport)), std::string(to_string(backend)),
                            static_cast<int>(hosts.size())};
    std::vector<std::string> tuning_notes;
    setup->set_tuning(std::make_shared<const coll::TuningTable>(applicable_tuning(*table, scope, &tuning_notes)));

    // What each collective is measured with: the --impl list, or (--tune-to)
    // every implementation this setup can run.
    std::vector<std::vector<coll::Algorithm>> impls_of;
    for (const auto kind : kinds) impls_of.push_back(f_.tune.empty() ? plan.impls : tunable_impls(*setup, kind, plan.ring));

    const std::vector<std::string> rank_hosts = doc["environment"]["hosts"];
    // The table and its diagnostics: behind -v (the JSON keeps them).
    CollConsoleReporter console(ctx.detail, ctx.mpi.size(), rank_hosts);
    std::vector<CollRecord> all;
    std::size_t steps_done = 0;
    // Progress counts the sizes whose last round has run: an interruption
    // in an earlier round leaves every size measured so far in the file,
    // each with the rounds it had, and none finished.
    const std::size_t total_sizes = kinds.size() * plan.sizes.size();
    std::size_t sizes_done = 0;
    nlohmann::json shown_results = nlohmann::json::array();
    CollRoundClock clock(ctx.mpi.world(), rounds, min_span_s);
    int rounds_done = 0;  // the most rounds any collective took
    for (std::size_t k = 0; k < kinds.size() && !out.stopped(); ++k) {
      CollPlan p = plan;
      p.kind = kinds[k];
      p.impls = impls_of[k];
      std::string setup_text;
      for (coll::Algorithm impl : p.impls) setup_text += (setup_text.empty() ? "" : ", ") + setup->describe(impl);
      const bool runs_auto = std::find(p.impls.begin(), p.impls.end(), coll::Algorithm::Auto) != p.impls.end();
      console.header(p, {fmt::format("{} ({})", setup_text, f_.compute.backend),
                         coll_header_notes(p, runs_auto ? coll_auto_notes(setup->tuning(), p.kind, ctx.mpi.size(),
                                                                          table_source, tuning_notes)
                                                        : std::vector<std::string>{},
                                           describe(topology), f_.tune.empty() ? 0 : kPruneSizes, model_in.source)});
      std::vector<CollRecord> mine;
      // Every size once per round; a size's rows are printed (and reach the
      // file) after its last round, aggregating all of them.
      CollSizeRows rows(p.sizes.size(), ctx.mpi.size());
      const auto show = [&](std::size_t i) {
        std::vector<CollRecord> recs = rows.take(i);
        if (recs.empty()) return;
        attach_expected(recs, model_in);
        for (std::size_t j = 0; j + 1 < recs.size(); j += 2) console.row(recs[j], recs[j + 1]);
        console.stragglers(recs);
        for (const auto& r : recs) {
          shown_results.push_back(to_json(r, rank_hosts));
          all.push_back(r);
          mine.push_back(r);
        }
        if (!f_.tune.empty()) console.ranking(rank_sizes(mine).back());
      };
      // The file: the rows shown so far, and every size measured since, as
      // its rounds so far have it; after each size of the first round (every
      // size measured reaches it at once), later as often as its writing
      // time allows (RunOutput::publish_throttled).
      const auto file_results = [&] {
        nlohmann::json results = shown_results;
        for (const auto& r : rows.pending()) results.push_back(to_json(r, rank_hosts));
        doc["results"] = std::move(results);
      };
      clock.start();
      bool last = false;
      for (int round = 0; round == 0 || (!last && !out.stopped()); ++round) {
        last = clock.begin(round);
        for (std::size_t i = 0; i < p.sizes.size(); ++i) {
          const auto bytes = p.sizes[i];
          const auto now = f_.tune.empty() ? p.impls : impls_worth_measuring(p.impls, rank_sizes(mine));
          std::string impls_text;
          for (coll::Algorithm impl : now) impls_text.append(impls_text.empty() ? "" : ",").append(to_string(impl));
          WatchdogScope watched(fmt::format("{} {} {}{}", coll::to_string(p.kind), impls_text, format_bytes(bytes),
                                            last && round == 0 ? "" : fmt::format(", round {}", round + 1)));
          // The trace holds the last round's last timed iteration of each row.
          rows.add(i, measure_collectives(*setup, ctx.mpi.world(), p, now, bytes, last ? recorder : nullptr));
          if (last) {
            show(i);
            ++sizes_done;
          }
          // Each measured size reaches the file, so a run that dies keeps it.
          out.publish_throttled(sizes_done, total_sizes, round == 0, file_results);
          // Every rank stops at the same size when any rank got SIGINT/SIGTERM.
          if (out.stop_requested(++steps_done)) break;
        }
        clock.end(round);
      }
      rounds_done = std::max(rounds_done, clock.rounds_done());
      // Interrupted: what earlier rounds measured is kept.
      for (std::size_t i = 0; i < p.sizes.size(); ++i) show(i);
      doc["results"] = shown_results;
    }
    // What follows the last round (the stability tests, the intervals, the
    // report) must stay small beside the rounds: scripts/bench-analysis.sh
    // times it from this line.
    ctx.progress << fmt::format("coll: {} round{} measured in {:.1f} s; analysing\n", rounds_done,
                                rounds_done == 1 ? "" : "s", clock.elapsed_s())
                 << std::flush;
    const CollStability stable = assess_coll_stability(all);
    add_coll_stability_json(doc, stable, rounds_done, rounds, min_span_s);
    std::size_t tuning_rules_written = 0;  // rank 0
    if (!f_.tune.empty() && !out.stopped()) {
      const coll::TuningTable measured =
          table_from_records(all, kinds, ctx.mpi.size(), run_tuning_origin(plan, kinds, ctx, scope, hosts.size()));
      if (ctx.mpi.is_root() && !plan.sizes.empty()) {
        write_tuning_table(f_.tune, ctx.mpi.size(), kinds, plan.sizes.front(), plan.sizes.back(), measured);
        tuning_rules_written = measured.rules.size();
      }
      doc["tuning"] = {{"file", f_.tune}, {"rules", measured.rules.size()}};
    }
    // Every rank gets here, interrupted or not: the traced sizes are kept.
    out.finish_trace(plan.timing.mode == TimingMode::Batched
                         ? "the last timed batch of each size, implementation and placement (out of place, in place); "
                           "warm-up and the other batches are not traced"
                         : "the last timed iteration of each size, implementation and placement (out of place, in "
                           "place); warm-up and the other timed iterations are not traced",
                     backend == Backend::Cuda);
    long long wrong = 0;
    for (const auto& r : all) wrong += r.wrong > 0 ? r.wrong : 0;
    return end_run(out, gate, doc,
                   {{},
                    [&] {
                      console.stability(all, stable, rounds_done);
                      // nccl-tests' two summary lines, then the answer.
                      CollConsoleReporter(ctx.out, ctx.mpi.size()).footer(all);
                      if (ctx.mpi.is_root()) print_answer(ctx.out, answer_of(bringup::read_record(doc)));
                      if (ctx.mpi.is_root() && !f_.tune.empty() && !out.stopped() && !plan.sizes.empty())
                        ctx.out << fmt::format("# tuning table written to {} ({} rules for {} ranks)\n", f_.tune,
                                               tuning_rules_written, ctx.mpi.size());
                    },
                    true, wrong > 0 ? fmt::format("{} wrong elements (see #wrong)", wrong) : "",
                    f_.tune.empty() ? "" : "the tuning table was not written"});
  }

 private:
  CollPlan make_plan() const {
    CollPlan plan;
    plan.type = datatype_flag(f_.compute.datatype, kCollDataTypes);
    const auto op = coll::parse_reduce_op(f_.op);
    if (!op) throw_usage("--op: unknown '{}' (sum, prod, max, min, avg)", f_.op);
    plan.op = *op;
    backend_flag(f_.compute.backend);
    if (!parse_transport(f_.transport)) throw_usage("--transport: unknown '{}' (mpi, nccl)", f_.transport);
    const auto mode = parse_timing_mode(f_.timing_mode);
    if (!mode) throw_usage("--timing: unknown '{}' (per-iteration, batched)", f_.timing_mode);
    if (f_.batch < 1) throw_usage("--batch: must be at least 1, got {}", f_.batch);
    plan.timing = timing_plan(f_.timing);
    plan.timing.mode = *mode;
    plan.timing.batch = f_.batch;
    plan.check = check_enabled(f_.check);
    const auto lo = parse_bytes(f_.minbytes, "--minbytes");
    const auto hi = parse_bytes(f_.maxbytes, "--maxbytes");
    const auto step = parse_bytes(f_.stepbytes, "--stepbytes");
    const double factor = parse_number(f_.stepfactor, "--stepfactor");
    if (lo > hi) throw_usage("--minbytes {} is larger than --maxbytes {}", lo, hi);
    if (step == 0 && !(factor > 1) && lo != hi)
      throw_usage("--stepfactor: {} never grows the size (needs > 1, or use --stepbytes)", f_.stepfactor);
    plan.sizes = coll_sizes(lo, hi, factor > 1 ? factor : 2, step, coll::size_of(plan.type));
    if (!(parse_number(f_.min_span_s, "--min-span-s") >= 0))
      throw_usage("--min-span-s: must be 0 or more seconds, got '{}'", f_.min_span_s);
    if (f_.rounds != "auto") {
      const int rounds = parse_rounds(f_.rounds);
      if (!f_.tune.empty() && rounds != 1)
        throw_usage("--rounds {}: --tune-to measures each size once (its passes are its own)", f_.rounds);
    }
    plan.ring.segment_bytes = parse_segment_bytes(f_.segment_bytes, "--segment-bytes");
    // --impl is checked against the collective (--tune-to measures every implementation).
    if (f_.tune.empty()) plan.impls = parse_coll_impls(f_.impl, make_kinds().front());
    if (!f_.tune.empty() && !f_.tuning.empty())
      throw_usage("--tune-to measures a new table; it does not read one (--tuning {})", f_.tuning);
    return plan;
  }

  void add_model_flags(CLI::App& app) {
    app.add_option("--model", f_.model,
                   "probe (the model column's link from the ring probe on these ranks, W at each row's message "
                   "size) | off")
        ->capture_default_str();
    app.add_option("--link-from", f_.link_from,
                   "The model column's W and alpha from a `shardroof link --json` record instead of the probe");
    app.add_option("--hw", f_.hw,
                   "The model column's link from a hardware preset (name or TOML file; with --link), and the "
                   "preset's published collective figures");
    app.add_option("--link", f_.link, "The preset's link for --hw (default: its default link)");
  }

  // The collectives to measure: --collective, or with --tune-to a list (all
  // of them by default).
  std::vector<coll::CollectiveKind> make_kinds() const {
    return coll_kinds(!f_.tune.empty() && collective_opt_->count() == 0 ? "all" : f_.collective, !f_.tune.empty());
  }

  // Where and how this run measured its table: its [[measured]] entry.
  coll::TuningOrigin run_tuning_origin(const CollPlan& plan, const std::vector<coll::CollectiveKind>& kinds,
                                       const RunContext& ctx, const TuningScope& scope, std::size_t hosts) const {
    const std::string sizes = f_.stepbytes != "0" ? fmt::format("{} to {} step {}", f_.minbytes, f_.maxbytes, f_.stepbytes)
                                                  : fmt::format("{} to {} x{}", f_.minbytes, f_.maxbytes, f_.stepfactor);
    return tuning_origin(
        plan, kinds, ctx.mpi.size(), scope,
        {host_name(), hosts, cpu_model(), mpi_library_version(), load_average(), utc_timestamp(),
         f_.compute.datatype, f_.op, sizes,
         fmt::format("{}, {} iterations, {} warm-up calls{}", f_.timing_mode, f_.timing.iters, f_.timing.warmup,
                     f_.timing_mode == "batched" ? fmt::format(", {} calls per batch", f_.batch) : ""),
         static_cast<std::size_t>(f_.timing.iters),
         fmt::format("shardroof coll --tune-to {} -b {} -e {} -f {} -n {} -w {} -d {} -o {} --backend {} "
                     "--transport {} --segment-bytes {} --timing {}",
                     f_.tune, f_.minbytes, f_.maxbytes, f_.stepfactor, f_.timing.iters, f_.timing.warmup,
                     f_.compute.datatype, f_.op, f_.compute.backend, f_.transport, f_.segment_bytes,
                     f_.timing_mode)});
  }

  CollFlags f_;
  CLI::Option* collective_opt_ = nullptr;
};

}  // namespace

std::unique_ptr<Command> make_coll_command() { return std::make_unique<CollCommand>(); }

}  // namespace shardroof
