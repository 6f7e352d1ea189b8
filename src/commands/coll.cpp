// `shardroof coll`: nccl-tests-style collective benchmark over a size sweep,
// and (--tune-to FILE) the measurement that writes the tuning table of `auto`.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <thread>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/values.h"
#include "collectives/algorithms.h"
#include "collectives/traits.h"
#include "commands/backends.h"
#include "commands/gate_run.h"
#include "commands/run_output.h"
#include "collectives/types.h"
#include "measure/coll_expectation.h"
#include "measure/coll_runner.h"
#include "measure/coll_stability.h"
#include "report/stability_report.h"
#include "measure/comm_setup.h"
#include "tuning/tuning.h"
#include "report/coll_report.h"
#include "report/gate_report.h"
#include "commands/environment.h"
#include "report/results_file.h"
#include "util/agreement.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/memory_budget.h"
#include "util/mpi_session.h"
#include "util/node.h"
#include "util/topology.h"
#include "util/watchdog.h"
#include "util/units.h"
#include "link/link_summary.h"
#include "model/hardware.h"

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

// Rounds per --min-span-s, at most (unless --rounds asks for more): a round
// shorter than span/K waits for its turn, so that short rounds (small sizes,
// one rank) spread evenly over the span instead of running back to back by
// the ten thousand. More rounds than the change-point test has blocks
// (stability::kMaxBlocks) would add samples, not moments of the machine, and
// the analysis after the rounds grows with the samples.
constexpr int kRoundsPerSpan = 100;

// Sleeps until `due_s` on the run's clock (`now_s` now), in short slices so
// that an interrupt is seen within one.
void idle_until(double due_s, double now_s) {
  using seconds = std::chrono::duration<double>;
  const auto until = std::chrono::steady_clock::now() + seconds(due_s - now_s);
  for (auto now = std::chrono::steady_clock::now(); !interrupt_requested() && now < until;
       now = std::chrono::steady_clock::now())
    std::this_thread::sleep_for(std::min(seconds(until - now), seconds(0.05)));
}

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
    if (!f_.tune_from.empty()) return tune_from_documents(ctx);
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
      topology = with_ranks_per_node(topology, f_.ranks_per_node);
      plan.ring.hier.node_of_rank = topology.node_of_rank;
      if (f_.tune.empty()) add_or_check_hier(plan, topology);
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
        check_native_limits(p, ctx.mpi.size());
      }
      if (!plan.sizes.empty()) {
        std::uint64_t need = 0;
        for (const auto kind : kinds)
          need = std::max(need, bytes_per_rank(kind, plan.sizes.back(), coll::size_of(plan.type), ctx.mpi.size(),
                                               measures_direct(plan, kind), hier_scratch_ranks(plan, kind, topology)));
        require_memory(node, need, fmt::format("--maxbytes {} ({})", f_.maxbytes, format_bytes(plan.sizes.back())));
      }
      if (!f_.tuning.empty()) {
        *table = read_tuning_file(f_.tuning);
        table_source = f_.tuning;
      } else {
        *table = builtin_tuning_table();
      }
      expectations = make_expectations(plan.sizes);
      model_choice = make_model_choice();
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
    const CollModelInputs model_in =
        f_.tune.empty() ? measure_coll_model(*setup, ctx.mpi.world(), plan, topology.node_of_rank,
                                             topology.nodes > 1 ? topology.ranks_per_node : 0, model_choice)
                        : CollModelInputs{};
    trace::Recorder* recorder = out.start_trace();
    out.begin_document({{"ranks", ctx.mpi.size()},
                        {"settings", settings_json(plan, kinds, table_source)},
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
    CollConsoleReporter console(ctx.out, ctx.mpi.size(), rank_hosts);
    std::vector<CollRecord> all;
    std::size_t steps_done = 0;
    const int rounds = f_.rounds == "auto" ? (f_.tune.empty() ? kDefaultRounds : 1) : parse_rounds(f_.rounds);
    const double min_span_s = f_.tune.empty() ? parse_number(f_.min_span_s, "--min-span-s") : 0.0;
    // Progress counts the sizes whose last round has run: an interruption
    // in an earlier round leaves every size measured so far in the file,
    // each with the rounds it had, and none finished.
    const std::size_t total_sizes = kinds.size() * plan.sizes.size();
    std::size_t sizes_done = 0;
    nlohmann::json shown_results = nlohmann::json::array();
    const auto run_clock = std::chrono::steady_clock::now();
    int rounds_done = 0;  // the most rounds any collective took
    auto last_write = run_clock;  // when the writing rank last wrote the file, and how long that took
    double last_write_s = 0;
    const auto elapsed_s = [&] {
      return max_over_ranks(ctx.mpi.world(),
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - run_clock).count());
    };
    for (std::size_t k = 0; k < kinds.size() && !out.stopped(); ++k) {
      CollPlan p = plan;
      p.kind = kinds[k];
      p.impls = impls_of[k];
      std::string setup_text;
      for (coll::Algorithm impl : p.impls) setup_text += (setup_text.empty() ? "" : ", ") + setup->describe(impl);
      CollHeader header{fmt::format("{} ({})", setup_text, f_.compute.backend), {}};
      if (std::find(p.impls.begin(), p.impls.end(), coll::Algorithm::Auto) != p.impls.end())
        header.notes = auto_notes(setup->tuning(), p.kind, ctx.mpi.size(), table_source, tuning_notes);
      if (std::find(p.impls.begin(), p.impls.end(), coll::Algorithm::Hier) != p.impls.end())
        header.notes.push_back("hier over " + describe(topology));
      if (p.impls.size() > 1)
        header.notes.push_back("implementations interleaved iteration by iteration, in an order that changes every "
                               "iteration so that each follows every other equally often");
      if (!f_.tune.empty()) header.notes.push_back(fmt::format("tuning: every implementation at every size; one of ours that lost to the same fastest of ours by more than the noise at {} sizes in a row, its loss growing by more than the noise from each to the next, is not measured at larger ones (native always is)", kPruneSizes));
      if (f_.tune.empty()) header.notes.push_back("model: " + model_in.source);
      console.header(p, header);
      std::vector<CollRecord> mine;
      // Every size once per round; a size's rows are printed (and reach the
      // file) after its last round, aggregating all of them.
      std::vector<std::vector<CollRecord>> by_size(p.sizes.size());
      std::vector<bool> shown(p.sizes.size(), false);
      const auto show = [&](std::size_t i) {
        if (shown[i] || by_size[i].empty()) return;
        shown[i] = true;
        for (auto& r : by_size[i]) summarize_coll_record(r, ctx.mpi.size());
        attach_expected(by_size[i], model_in);
        const auto& recs = by_size[i];
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
      // its rounds so far have it. It is written after each size of the
      // first round (every size measured reaches it at once), and later no
      // sooner than ten times its last writing's time after it, so that
      // rewriting a file that grows with every round takes at most a tenth
      // of the run; the end of the run writes it once more. Only the writing
      // rank builds it.
      const auto publish = [&](bool first_round) {
        const auto now = std::chrono::steady_clock::now();
        if (!out.writes_files() ||
            (!first_round && std::chrono::duration<double>(now - last_write).count() < 10 * last_write_s)) {
          out.note_progress(sizes_done, total_sizes);
          return;
        }
        nlohmann::json results = shown_results;
        for (std::size_t i = 0; i < by_size.size(); ++i)
          if (!shown[i])
            for (CollRecord r : by_size[i]) {
              summarize_coll_record(r, ctx.mpi.size());
              results.push_back(to_json(r, rank_hosts));
            }
        doc["results"] = std::move(results);
        out.publish(sizes_done, total_sizes);
        last_write = std::chrono::steady_clock::now();
        last_write_s = std::chrono::duration<double>(last_write - now).count();
      };
      // A round is the last once --rounds are done and the rounds, with
      // this one (as long as the one before), span --min-span-s; every
      // rank decides on the slowest rank's clock.
      const double kind_start_s = elapsed_s();
      double last_round_s = 0;
      int done_rounds = 0;
      bool last = rounds == 1 && min_span_s <= 0;
      const double pace_s = min_span_s / std::max(kRoundsPerSpan, rounds);
      for (int round = 0; round == 0 || (!last && !out.stopped()); ++round) {
        // Every rank idles as long: they agree on the clock (elapsed_s).
        if (round > 0 && pace_s > 0) idle_until(kind_start_s + round * pace_s, elapsed_s());
        const double round_start_s = elapsed_s();
        last = round + 1 >= rounds && round_start_s - kind_start_s + last_round_s >= min_span_s;
        for (std::size_t i = 0; i < p.sizes.size(); ++i) {
          const auto bytes = p.sizes[i];
          const auto rankings = rank_sizes(mine);
          std::vector<coll::Algorithm> now;
          for (coll::Algorithm impl : p.impls)
            if (f_.tune.empty() || worth_measuring(std::string(to_string(impl)), rankings)) now.push_back(impl);
          std::string impls_text;
          for (coll::Algorithm impl : now) {
            if (!impls_text.empty()) impls_text += ',';
            impls_text += to_string(impl);
          }
          WatchdogScope watched(fmt::format("{} {} {}{}", coll::to_string(p.kind), impls_text, format_bytes(bytes),
                                            last && round == 0 ? "" : fmt::format(", round {}", round + 1)));
          // The trace holds the last round's last timed iteration of each row.
          auto recs = measure_collectives(*setup, ctx.mpi.world(), p, now, bytes,
                                          last ? recorder : nullptr);
          if (round == 0) {
            by_size[i] = std::move(recs);
          } else {
            for (std::size_t j = 0; j < recs.size() && j < by_size[i].size(); ++j)
              append_coll_round(by_size[i][j], recs[j]);
          }
          if (last) {
            show(i);
            ++sizes_done;
          }
          // Each measured size reaches the file, so a run that dies keeps it.
          publish(round == 0);
          // Every rank stops at the same size when any rank got SIGINT/SIGTERM.
          if (out.stop_requested(++steps_done)) break;
        }
        last_round_s = elapsed_s() - round_start_s;
        done_rounds = round + 1;
      }
      rounds_done = std::max(rounds_done, done_rounds);
      // Interrupted: what earlier rounds measured is kept.
      for (std::size_t i = 0; i < p.sizes.size(); ++i) show(i);
      doc["results"] = shown_results;
    }
    // What follows the last round (the stability tests, the intervals, the
    // report) must stay small beside the rounds: scripts/bench-analysis.sh
    // times it from this line.
    const double measured_s = elapsed_s();
    ctx.progress << fmt::format("coll: {} round{} measured in {:.1f} s; analysing\n", rounds_done,
                                rounds_done == 1 ? "" : "s", measured_s)
                 << std::flush;
    const CollStability stable = assess_coll_stability(all);
    for (std::size_t i = 0; i < all.size() && i < doc["results"].size(); ++i) {
      doc["results"][i]["stability"] = stability_json(stable.rows[i]);
      doc["results"][i]["time_us_ci95"] = {stable.intervals[i].low * 1e6, stable.intervals[i].high * 1e6};
    }
    doc["stability"] = {{"rounds", rounds_done}, {"min_rounds", rounds}, {"min_span_s", min_span_s},
                        {"run", stability_json(stable.run)},
                        {"times", "seconds since the run's first timed iteration, rank 0's monotonic clock"}};
    std::size_t tuning_rules_written = 0;  // rank 0
    if (!f_.tune.empty() && !out.stopped()) {
      const coll::TuningTable measured =
          table_from_records(all, kinds, ctx.mpi.size(), tuning_origin(plan, kinds, ctx, scope, hosts));
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
                      console.footer(all);
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
    if (f_.tune.empty()) plan.impls = parse_impl_list(f_.impl, make_kinds().front());
    if (!f_.tune.empty() && !f_.tuning.empty())
      throw_usage("--tune-to measures a new table; it does not read one (--tuning {})", f_.tuning);
    return plan;
  }

  // --expect-busbw over the sizes from --expect-from (default: a tenth of
  // the largest, gate::default_expect_from).
  std::vector<GateExpectation> make_expectations(const std::vector<std::uint64_t>& sizes) const {
    const ExpectFlag busbw = expect_flag(f_.expect_busbw, "--expect-busbw", true);
    if (!busbw.set()) {
      if (!f_.expect_from.empty()) throw_usage("--expect-from {}: only with --expect-busbw", f_.expect_from);
      return {};
    }
    const std::uint64_t from =
        f_.expect_from.empty() ? gate::default_expect_from(sizes) : parse_bytes(f_.expect_from, "--expect-from");
    if (!sizes.empty() && from > sizes.back())
      throw_usage("--expect-from {}: larger than the largest size measured ({})", f_.expect_from,
                  format_bytes(sizes.back()));
    const std::string what =
        busbw.model_fraction > 0
            ? fmt::format("busbw at least {:g}% of the model's (this run's expected busbw of the same row)",
                          busbw.model_fraction * 100)
            : fmt::format("busbw at least {}", format_metric_value(busbw.at_least, "B/s"));
    return {{"busbw", busbw.at_least, from,
             fmt::format("--expect-busbw {}: {} at every size from {} ({}), every implementation and placement",
                         f_.expect_busbw, what, format_bytes(from),
                         f_.expect_from.empty() ? "a tenth of the largest size" : "--expect-from"),
             busbw.model_fraction}};
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

  // Where the model column's link comes from; the file or preset is read
  // here, so a bad one is a usage error before anything runs.
  CollModelChoice make_model_choice() const {
    CollModelChoice c;
    if (f_.model == "off") {
      c.source = CollModelChoice::Source::Off;
    } else if (f_.model != "probe") {
      throw_usage("--model: unknown '{}' (probe, off)", f_.model);
    }
    if (!f_.link.empty() && f_.hw.empty()) throw_usage("--link {}: names a link of --hw PRESET", f_.link);
    if (!f_.link_from.empty() && !f_.hw.empty()) throw_usage("--link-from and --hw: give one source of the link");
    if (c.source == CollModelChoice::Source::Off && (!f_.link_from.empty() || !f_.hw.empty()))
      throw_usage("--model off: no link to take (--link-from, --hw)");
    // A model gate needs the model column, which --tune-to does not measure.
    if (f_.expect_busbw.rfind("model:", 0) == 0 && (c.source == CollModelChoice::Source::Off || !f_.tune.empty()))
      throw_usage("--expect-busbw {}: needs the model column ({})", f_.expect_busbw,
                  f_.tune.empty() ? "not with --model off" : "--tune-to measures none");
    if (!f_.link_from.empty()) {
      link::load_link_fit(f_.link_from);
      c.source = CollModelChoice::Source::LinkFile;
      c.link_file = f_.link_from;
    }
    if (!f_.hw.empty()) {
      model::load_hardware_preset(f_.hw).link(f_.link);
      c.source = CollModelChoice::Source::Preset;
      c.hw = f_.hw;
      c.link = f_.link;
    }
    return c;
  }

  // The collectives to measure: --collective, or with --tune-to a list (all
  // of them by default).
  std::vector<coll::CollectiveKind> make_kinds() const {
    const bool tuning = !f_.tune.empty();
    const std::string text = tuning && collective_opt_->count() == 0 ? "all" : f_.collective;
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

  // Whether `plan` runs direct (its scratch holds N copies of an AllReduce).
  bool measures_direct(const CollPlan& plan, coll::CollectiveKind kind) const {
    if (kind != coll::CollectiveKind::AllReduce) return false;
    if (!f_.tune.empty()) return true;
    return std::find_if(plan.impls.begin(), plan.impls.end(),
                        [](coll::Algorithm i) { return i == coll::Algorithm::Direct || i == coll::Algorithm::Auto; }) != plan.impls.end();
  }

  // K when hier ReduceScatter runs on nodes of K ranks (its scratch), else 0.
  static int hier_scratch_ranks(const CollPlan& plan, coll::CollectiveKind kind, const Topology& topology) {
    const bool hier = std::find(plan.impls.begin(), plan.impls.end(), coll::Algorithm::Hier) != plan.impls.end();
    const bool two_levels = topology.nodes > 1 && topology.ranks_per_node > 1;
    return hier && two_levels && kind == coll::CollectiveKind::ReduceScatter ? topology.ranks_per_node : 0;
  }

  // What measure_collectives allocates per rank at `bytes` (send, recv, in
  // place, its pristine copy, two host staging arrays), plus one more array
  // for the MPI library's own temporaries, direct AllReduce's N receive
  // slots when it runs, and hier ReduceScatter's scratch on nodes of
  // `hier_k` ranks (0: it does not run): the regrouped input and the
  // node's reduced piece (collectives/hierarchical.cpp). Rank 0 holds the
  // largest blocks.
  static std::uint64_t bytes_per_rank(coll::CollectiveKind kind, std::uint64_t bytes, std::size_t es, int nranks,
                                      bool direct, int hier_k) {
    const coll::CollectiveTraits& t = coll::traits(kind);
    const coll::CallShape rank0{bytes / es, 0, nranks};
    const std::uint64_t in = saturating_mul(t.input_count(rank0), es);
    const std::uint64_t out = saturating_mul(t.output_count(rank0), es);
    const std::uint64_t buffer = saturating_mul(t.in_place(rank0).buffer, es);
    std::uint64_t total = saturating_add(in, out);
    total = saturating_add(total, saturating_mul(buffer, 2));                  // in place, pristine
    total = saturating_add(total, saturating_add(std::max(in, out), buffer));  // host staging, full pattern
    if (direct) total = saturating_add(total, saturating_mul(bytes, static_cast<std::uint64_t>(nranks)));
    if (hier_k > 0) {
      const std::uint64_t piece = (bytes / es + static_cast<std::uint64_t>(hier_k) - 1) / static_cast<std::uint64_t>(hier_k);
      total = saturating_add(total, saturating_add(bytes, saturating_mul(piece, es)));
    }
    return saturating_add(total, buffer);
  }

  // MPI counts are ints: the native collectives cannot move some sizes.
  void check_native_limits(const CollPlan& plan, int nranks) const {
    const bool native = !f_.tune.empty() || std::find(plan.impls.begin(), plan.impls.end(), coll::Algorithm::Native) != plan.impls.end();
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

  // hier needs equal nodes (and for reduce_scatter consecutive ranks); `all`
  // runs it where it differs from the ring: several nodes of several ranks.
  void add_or_check_hier(CollPlan& plan, const Topology& topology) const {
    const bool reduce_scatter = plan.kind == coll::CollectiveKind::ReduceScatter;
    const std::string why = hier_unavailable_reason(topology, reduce_scatter);
    auto& impls = plan.impls;
    if (std::find(impls.begin(), impls.end(), coll::Algorithm::Hier) != impls.end()) {
      if (!why.empty()) throw_usage("--impl hier: {}", why);
      return;
    }
    if (f_.impl == "all" && why.empty() && coll::supports(coll::Algorithm::Hier, plan.kind) && topology.nodes > 1 &&
        topology.ranks_per_node > 1)
      impls.insert(std::find(impls.begin(), impls.end(), coll::Algorithm::Native), coll::Algorithm::Hier);
  }

  // "all", one name, or a comma-separated list of names.
  static std::vector<coll::Algorithm> parse_impl_list(const std::string& text, coll::CollectiveKind kind) {
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

  // The implementations of `kind` this setup can build (the same on every
  // rank: building a collective does not communicate).
  static std::vector<coll::Algorithm> tunable_impls(CommSetup& setup, coll::CollectiveKind kind, const coll::CollectiveOptions& ring) {
    // What auto can choose: our candidates and the library's own.
    std::vector<coll::Algorithm> candidates = coll::auto_candidates(kind);
    candidates.push_back(coll::Algorithm::Native);
    std::vector<coll::Algorithm> out;
    for (const coll::Algorithm impl : candidates) {
      try {
        setup.make(kind, impl, ring);
        out.push_back(impl);
      } catch (const UsageError&) {
        // not on this setup (pairwise over NCCL)
      }
    }
    return out;
  }

  // The header lines that say what `auto` chooses by.
  static std::vector<std::string> auto_notes(const coll::TuningTable& table, coll::CollectiveKind kind, int ranks,
                                             const std::string& source, const std::vector<std::string>& dropped) {
    std::vector<std::string> notes = dropped;
    const auto rules = table.rules_for(kind, ranks);
    if (rules.empty()) {
      notes.push_back(fmt::format("auto: the tuning table ({}) has no {} rules for {} ranks: auto runs native "
                                  "(the library's own), else {}; measure some with --tune-to FILE",
                                  source, coll::to_string(kind), ranks,
                                  coll::to_string(coll::traits(kind).algorithms.front().algorithm)));
      return notes;
    }
    std::string where;
    if (const coll::TuningOrigin* o = table.origin_for(kind, ranks)) {
      for (const char* key : {"host", "cpu", "mpi_library", "date", "load_average"})
        if (const std::string v = o->get(key); !v.empty()) where += fmt::format("{}{} {}", where.empty() ? "" : ", ", key, v);
    }
    notes.push_back(fmt::format("auto: {} rules of the tuning table ({}){}", rules.size(), source,
                                where.empty() ? "" : ", measured with " + where));
    return notes;
  }

  // Where and how this run measured its table: its [[measured]] entry.
  coll::TuningOrigin tuning_origin(const CollPlan& plan, const std::vector<coll::CollectiveKind>& kinds,
                                   const RunContext& ctx, const TuningScope& scope,
                                   const std::set<std::string>& hosts) const {
    coll::TuningOrigin o;
    o.ranks = ctx.mpi.size();
    o.kinds = kinds;
    o.min_bytes = plan.sizes.empty() ? 0 : plan.sizes.front();
    o.max_bytes = plan.sizes.empty() ? 0 : plan.sizes.back();
    o.fields = {{"host", host_name()},
                {"hosts", std::to_string(hosts.size())},
                {"cpu", cpu_model()},
                {"logical_cpus", std::to_string(std::thread::hardware_concurrency())},
                {"mpi_library", mpi_library_version()},
                {"transport", scope.transport},
                {"backend", scope.backend},
                {"datatype", f_.compute.datatype},
                {"op", f_.op},
                {"sizes", plan_sizes_text()},
                {"timing", fmt::format("{}, {} iterations, {} warm-up calls{}", f_.timing_mode, f_.timing.iters,
                                       f_.timing.warmup,
                                       f_.timing_mode == "batched" ? fmt::format(", {} calls per batch", f_.batch) : "")},
                {"passes", passes_text(static_cast<std::size_t>(f_.timing.iters))},
                {"load_average", load_average()},
                {"date", utc_timestamp()},
                {"command", fmt::format("shardroof coll --tune-to {} -b {} -e {} -f {} -n {} -w {} -d {} -o {} "
                                        "--backend {} --transport {} --segment-bytes {} --timing {}",
                                        f_.tune, f_.minbytes, f_.maxbytes, f_.stepfactor, f_.timing.iters,
                                        f_.timing.warmup, f_.compute.datatype, f_.op, f_.compute.backend, f_.transport,
                                        f_.segment_bytes, f_.timing_mode)}};
    return o;
  }

  std::string plan_sizes_text() const {
    return f_.stepbytes != "0" ? fmt::format("{} to {} step {}", f_.minbytes, f_.maxbytes, f_.stepbytes)
                               : fmt::format("{} to {} x{}", f_.minbytes, f_.maxbytes, f_.stepfactor);
  }

  // Writes --tune-to FILE (rank 0 only) and says so.
  void write_tuning(int ranks, const std::vector<coll::CollectiveKind>& kinds, std::uint64_t lo, std::uint64_t hi,
                    const coll::TuningTable& measured, const RunContext& ctx) const {
    write_tuning_table(f_.tune, ranks, kinds, lo, hi, measured);
    ctx.out << fmt::format("# tuning table written to {} ({} rules for {} ranks)\n", f_.tune, measured.rules.size(),
                           ranks);
  }

  // --tune-from: the table from earlier launches' documents; nothing is
  // measured, and only rank 0 works (the documents say the rank count).
  int tune_from_documents(RunContext& ctx) {
    run_agreed(ctx.mpi.world(), [&] {
      if (f_.tune.empty()) throw_usage("--tune-from: needs --tune-to FILE, the table it writes");
      if (!f_.tuning.empty()) throw_usage("--tune-from writes a table; it does not read one (--tuning {})", f_.tuning);
      if (!ctx.mpi.is_root()) return;
      check_tuning_output(f_.tune, ctx.force, "--tune-to");
      std::string list;
      for (const auto& p : f_.tune_from) list += (list.empty() ? "" : ",") + p;
      const TuningSources sources =
          read_tuning_sources(f_.tune_from, fmt::format("shardroof coll --tune-to {} --tune-from {}", f_.tune, list));
      const coll::TuningTable measured = table_from_sources(sources);
      ctx.out << fmt::format("# tuning from {} documents of {} ranks: each size takes the implementation whose worst "
                             "loss over the launches is least\n",
                             f_.tune_from.size(), sources.ranks);
      write_tuning(sources.ranks, sources.origin.kinds, sources.origin.min_bytes, sources.origin.max_bytes, measured,
                   ctx);
    });
    return 0;
  }

  nlohmann::json settings_json(const CollPlan& plan, const std::vector<coll::CollectiveKind>& kinds,
                               const std::string& table_source) const {
    return coll_settings_json(
        plan, {kinds, f_.rounds == "auto" ? (f_.tune.empty() ? kDefaultRounds : 1) : parse_rounds(f_.rounds),
               f_.tune.empty() ? parse_number(f_.min_span_s, "--min-span-s") : 0.0, f_.impl, f_.compute.backend,
               f_.transport, f_.stepfactor, f_.stepbytes, table_source, f_.tune, f_.ranks_per_node});
  }

  CollFlags f_;
  CLI::Option* collective_opt_ = nullptr;
};

}  // namespace

std::unique_ptr<Command> make_coll_command() { return std::make_unique<CollCommand>(); }

}  // namespace shardroof
