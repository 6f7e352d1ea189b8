// `shardroof combine FILE...`: the records of several launches of one
// sweep or coll, with the same settings, combined into the answer the next
// launch should confirm (launches/combination.h). Measures nothing; runs
// on one process (rank 0 reads and prints).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/common_flags.h"
#include "commands/run_output.h"
#include "launches/combined_records.h"
#include "launches/records.h"
#include "report/answer.h"
#include "report/bringup.h"
#include "report/combine_report.h"
#include "util/agreement.h"
#include "util/error.h"

namespace shardroof {
namespace {

struct CombineFlags {
  std::vector<std::string> files;
  OutputFlags output;
};

class CombineCommand final : public Command {
 public:
  std::string name() const override { return "combine"; }
  std::string description() const override {
    return "Combine the --json records of several launches of sweep or coll (same settings): each launch's value, "
           "the across-launch median with its interval, between- and within-launch variance, the next launch's "
           "prediction interval";
  }

  void add_options(CLI::App& app) override {
    app.add_option("files", f_.files, "Records (--json) of sweep or coll launches with the same settings")
        ->required();
    add_json_flag(app, f_.output);
    add_csv_flag(app, f_.output);
  }

  int run(RunContext& ctx) override {
    launches::LaunchSet set;
    run_agreed(ctx.mpi.world(), [&] { set = launches::read_launch_files(f_.files); });
    RunOutput out = RunOutput::agree(ctx, "combine", "launches", {f_.output.json, f_.output.csv, "", true});
    nlohmann::json doc;
    std::string csv;
    if (set.command == "sweep" && set.sweeps.size() < 2) {
      // Fewer than two launches located a crossover: no D* to combine, and
      // what the others located instead is the answer.
      const auto u = launches::summarize_uncrossed(set);
      const auto states = launches::sweep_states(set);
      print_sweep_uncombined(ctx.detail, set, u, states);
      doc = sweep_uncombined_json(set, u, states);
      csv = sweep_uncombined_csv(set, states);
    } else if (set.command == "sweep") {
      const auto c = launches::combine_sweeps(set);
      print_sweep_combination(ctx.detail, set, c);
      doc = sweep_combination_json(set, c);
      csv = sweep_combination_csv(set, c);
    } else {
      const auto c = launches::combine_colls(set);
      print_coll_combination(ctx.detail, set, c);
      doc = coll_combination_json(set, c);
      csv = coll_combination_csv(set, c);
    }
    doc["files"] = f_.files;
    doc["complete"] = true;
    out.begin_document(doc);
    out.finish([&] { return csv; });
    // The launches' table behind -v; the answer by default.
    if (ctx.mpi.is_root()) print_answer(ctx.out, answer_of(bringup::read_record(out.document())));
    out.print_written_files();
    return out.exit_status();
  }

 private:
  CombineFlags f_;
};

}  // namespace

std::unique_ptr<Command> make_combine_command() { return std::make_unique<CombineCommand>(); }

}  // namespace shardroof
