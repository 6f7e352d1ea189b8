// `shardroof report FILE... -o report.html`: a bring-up's records (any mix
// of sweep, coll, link, peak, predict and combine --json files) as one
// self-contained HTML page (report/html_report.h), and the answer block on
// the console. Measures nothing; runs on one process (rank 0 reads and
// writes).
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "commands/output_path.h"
#include "report/answer.h"
#include "report/bringup.h"
#include "report/html_report.h"
#include "report/results_file.h"
#include "util/agreement.h"
#include "util/error.h"

namespace shardroof {
namespace {

struct ReportFlags {
  std::vector<std::string> files;
  std::string output = "report.html";
};

// The records, each parsed; one that is not JSON is a usage error naming it
// (a record with missing or unknown fields is drawn without them).
bringup::BringUp read_records(const std::vector<std::string>& files) {
  bringup::BringUp b;
  for (const auto& path : files) {
    std::ifstream in(path);
    if (!in) throw_usage("cannot read '{}'", path);
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw_usage("'{}' is not JSON: {}", path, e.what());
    }
    bringup::add_record(b, path, doc);
  }
  return b;
}

class ReportCommand final : public Command {
 public:
  std::string name() const override { return "report"; }
  std::string description() const override {
    return "Write one self-contained HTML page (inline SVG, no network) from the --json records of sweep, coll, link, "
           "peak, predict and combine: the answer, the sweep's plot, launches side by side, ceilings against the "
           "hardware, the link matrix, coll against the model, the environment";
  }

  void add_options(CLI::App& app) override {
    app.add_option("files", f_.files, "Records (--json) of any shardroof command, in any mix")->required();
    app.add_option("-o,--output", f_.output, "The HTML file to write")->capture_default_str();
  }

  int run(RunContext& ctx) override {
    bringup::BringUp b;
    std::string html;
    run_agreed(ctx.mpi.world(), [&] {
      b = read_records(f_.files);
      html = html_report(b, f_.files);
    });
    const std::string path = agree_output_path(ctx.mpi.world(), f_.output, ctx.force, "--output", ctx.progress);
    run_agreed(ctx.mpi.world(), [&] {
      if (ctx.mpi.is_root()) write_file_atomically(path, html);
    });
    print_answer(ctx.out, bringup_answer(b));
    const auto sections = report_sections(b);
    std::string names;
    for (const auto& s : sections) names += (names.empty() ? "" : ", ") + s;
    ctx.detail << fmt::format("# {} records read; sections: {}\n", f_.files.size(), names);
    for (const auto& s : b.skipped) ctx.detail << "# skipped: " << s << "\n";
    if (!b.skipped.empty())
      ctx.out << fmt::format("# {} fields the records lack were left out (named in the page's last section{})\n",
                             b.skipped.size(), " and with -v");
    ctx.out << fmt::format("# report written to {}\n", path);
    return 0;
  }

 private:
  ReportFlags f_;
};

}  // namespace

std::unique_ptr<Command> make_report_command() { return std::make_unique<ReportCommand>(); }

}  // namespace shardroof
