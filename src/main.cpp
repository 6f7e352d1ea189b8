// shardroof: one executable, its subcommands. Only rank 0 prints.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <algorithm>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.h"
#include "cli/config_file.h"
#include "commands/environment.h"
#include "hardware/blas_choice.h"
#include "util/agreement.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/mpi_session.h"
#include "util/watchdog.h"

namespace shardroof {
namespace {

class NullBuffer final : public std::streambuf {
 protected:
  int overflow(int c) override { return c; }
};

std::vector<std::unique_ptr<Command>> all_commands() {
  std::vector<std::unique_ptr<Command>> cmds;
  cmds.push_back(make_sweep_command());
  cmds.push_back(make_coll_command());
  cmds.push_back(make_link_command());
  cmds.push_back(make_peak_command());
  cmds.push_back(make_predict_command());
  cmds.push_back(make_combine_command());
  cmds.push_back(make_report_command());
  return cmds;
}

// Builds the argument list CLI11 parses: the config file's flags first,
// then the user's, so the command line wins.
std::vector<std::string> expand_config(int argc, char** argv, CLI::App& app) {
  std::vector<std::string> args(argv + 1, argv + argc);
  CLI::App* sub = nullptr;
  std::size_t sub_pos = 0;
  for (std::size_t i = 0; i < args.size() && !sub; ++i) {
    for (CLI::App* s : app.get_subcommands([](CLI::App*) { return true; })) {
      if (s->get_name() == args[i]) {
        sub = s;
        sub_pos = i;
      }
    }
  }
  if (!sub) return args;
  std::string path;
  for (std::size_t i = sub_pos + 1; i < args.size(); ++i) {
    if (args[i] == "--config" && i + 1 < args.size()) path = args[i + 1];
    if (args[i].rfind("--config=", 0) == 0) path = args[i].substr(9);
  }
  if (path.empty()) return args;
  auto from_file = config_file_to_args(path, sub->get_name(), config_keys(*sub));
  args.insert(args.begin() + static_cast<std::ptrdiff_t>(sub_pos + 1), from_file.begin(), from_file.end());
  return args;
}

// Whether the command line names a command that times GEMMs (sweep, peak),
// or asks for --version (which names the kernel those would run): only
// those need the BLAS kernel, and the others need not start twice.
bool times_gemms(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "sweep" || arg == "peak" || arg == "--version") return true;
    if (!arg.empty() && arg.front() != '-') return false;  // another command
  }
  return false;
}

int run_main(MpiSession& mpi, int argc, char** argv) {
  NullBuffer null_buffer;
  std::ostream null_stream(&null_buffer);
  std::ostream& out = mpi.is_root() ? std::cout : null_stream;
  std::ostream& progress = mpi.is_root() ? std::cerr : null_stream;

  CLI::App app{"shardroof: where a D-sharded matmul stops being communication-bound.\n"
               "Measures compute vs communication over ranks and locates the inter-chip "
               "roofline crossover D*.",
               "shardroof"};  // named, so usage lines read "shardroof [OPTIONS]"
  app.require_subcommand(0, 1);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  bool show_version = false;
  app.add_flag("--version", show_version, "Print the version, backends and transports, then exit");
  // Flags every command shares (see README, "Exit status and reliability").
  double timeout_s = 300;
  bool force = false;
  bool detail = false;

  auto commands = all_commands();
  std::vector<std::pair<CLI::App*, Command*>> subs;
  for (auto& cmd : commands) {
    CLI::App* sub = app.add_subcommand(cmd->name(), cmd->description());
    sub->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    sub->add_option("--config", "TOML file whose keys are this command's long flag names; flags override it");
    sub->add_flag("--version", show_version, "Print the version and exit");
    if (cmd->name() != "predict") {
      sub->add_option("--timeout", timeout_s,
                      "Seconds an operation may go without progress before the watchdog ends the job (0: never)")
          ->capture_default_str();
    }
    sub->add_flag("-v,--detail", detail,
                  "Print the rows and diagnostics before the answer block (the tables, the header, each point's "
                  "and round's lines); the JSON holds them either way");
    sub->add_flag("--force", force, "Overwrite existing output files (otherwise a fresh name is chosen and printed)");
    cmd->add_options(*sub);
    subs.emplace_back(sub, cmd.get());
  }

  // The config file is read on every rank; a rank that cannot read it (or
  // reads a different one) fails the job on every rank, before any command
  // starts a collective.
  std::vector<std::string> args;
  run_agreed(mpi.world(), [&] { args = expand_config(argc, argv, app); });
  require_same_settings(mpi.world(), args, "command line and config file");
  try {
    std::reverse(args.begin(), args.end());
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    // Every rank parsed the same arguments, so every rank ends here: only
    // rank 0 speaks.
    // The barrier keeps the other ranks from exiting (and the launcher from
    // killing rank 0) before rank 0 has printed.
    if (!mpi.is_root()) {
      barrier(mpi.world());
      return e.get_exit_code() == 0 ? 0 : static_cast<int>(ExitCode::Usage);
    }
    const int rc = app.exit(e, std::cout, std::cerr);
    std::cout << std::flush;
    barrier(mpi.world());
    return rc == 0 ? 0 : static_cast<int>(ExitCode::Usage);
  }

  if (show_version) {
    out << version_text(local_environment(mpi)) << '\n';
    return 0;
  }
  run_agreed(mpi.world(), [&] {
    if (!(timeout_s >= 0)) throw_usage("--timeout: must be 0 (no watchdog) or a number of seconds, got {}", timeout_s);
  });
  process_watchdog().set_rank(mpi.rank());
  process_watchdog().set_timeout(timeout_s);
  for (auto& [sub, cmd] : subs) {
    if (sub->parsed()) {
      RunContext ctx{mpi, out, progress, detail ? out : null_stream, force};
      // The whole command is one watched operation: a rank stuck anywhere
      // between two steps (inner scopes mark the steps) is found too.
      std::optional<WatchdogScope> watched;
      if (cmd->name() != "predict") watched.emplace("shardroof " + cmd->name());
      const int status = cmd->run(ctx);
      // Rank 0 may still be printing its last lines (e.g. where an
      // interrupted run left its results) when the others return; a rank
      // that exits non-zero early makes the launcher kill the rest.
      std::cout << std::flush;
      std::cerr << std::flush;
      if (cmd->name() != "predict") barrier(mpi.world());
      return status;
    }
  }
  // No subcommand: the help, which lists the subcommands.
  out << app.help() << '\n';
  return 0;
}

// The one error line, written with a single write: the launcher forwards
// each rank's stderr separately from stdout and may split a line written in
// pieces. rank < 0: an error every rank agreed on, printed once.
std::string error_line(int rank, const char* what) {
  return rank < 0 ? fmt::format("shardroof: error: {}\n", what)
                  : fmt::format("shardroof: error (rank {}): {}\n", rank, what);
}

}  // namespace
}  // namespace shardroof

int main(int argc, char** argv) {
  using namespace shardroof;
  // The BLAS kernel is the library's choice when it loaded: where that is
  // below this CPU, a command that times GEMMs starts again with the right
  // one, before MPI knows of it (hardware/blas_choice.h).
  if (times_gemms(argc, argv)) hw::choose_blas_kernel(argc, argv);
  std::unique_ptr<MpiSession> mpi;
  try {
    mpi = std::make_unique<MpiSession>(&argc, &argv);
  } catch (const std::exception& e) {
    std::cerr << fmt::format("shardroof: error: cannot start MPI: {}\n", e.what()) << std::flush;
    return static_cast<int>(ExitCode::Runtime);
  }
  install_interrupt_handlers();
  if (mpi->is_root()) set_interrupt_note("no results were written yet");
  int code = 0;
  try {
    code = run_main(*mpi, argc, argv);
  } catch (const Error& e) {
    if (e.agreed()) {
      if (mpi->is_root()) std::cerr << error_line(-1, e.what()) << std::flush;
      // Every rank is here: wait until rank 0 has printed, or the launcher,
      // seeing another rank exit non-zero, may kill rank 0 mid-message.
      MPI_Barrier(MPI_COMM_WORLD);
      return static_cast<int>(e.code());
    }
    std::cerr << error_line(mpi->rank(), e.what()) << std::flush;
    code = static_cast<int>(e.code());
    if (mpi->size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
  } catch (const std::exception& e) {
    std::cerr << error_line(mpi->rank(), e.what()) << std::flush;
    code = static_cast<int>(ExitCode::Runtime);
    if (mpi->size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
  }
  return code;
}
