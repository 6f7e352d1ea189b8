// shardroof: one executable, five subcommands. Only rank 0 prints.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstring>
#include <iostream>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/config_file.h"
#include "report/environment.h"
#include "util/error.h"
#include "util/mpi_session.h"

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
  return cmds;
}

// The long names of a subcommand's flags: the keys a config file may use.
std::vector<std::string> config_keys(const CLI::App& sub) {
  std::vector<std::string> keys;
  for (const CLI::Option* opt : sub.get_options()) {
    for (const auto& name : opt->get_lnames()) {
      if (name != "help" && name != "config") keys.push_back(name);
    }
  }
  return keys;
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

int run_main(MpiSession& mpi, int argc, char** argv) {
  NullBuffer null_buffer;
  std::ostream null_stream(&null_buffer);
  std::ostream& out = mpi.is_root() ? std::cout : null_stream;
  std::ostream& progress = mpi.is_root() ? std::cerr : null_stream;

  CLI::App app{"shardroof: where a D-sharded matmul stops being communication-bound.\n"
               "Measures compute vs communication over ranks and locates the inter-chip "
               "roofline crossover D*."};
  app.require_subcommand(0, 1);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  bool show_version = false;
  app.add_flag("--version", show_version, "Print the version, backends and transports, then exit");

  auto commands = all_commands();
  std::vector<std::pair<CLI::App*, Command*>> subs;
  for (auto& cmd : commands) {
    CLI::App* sub = app.add_subcommand(cmd->name(), cmd->description());
    sub->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    sub->add_option("--config", "TOML file whose keys are this command's long flag names; flags override it");
    sub->add_flag("--version", show_version, "Print the version and exit");
    cmd->add_options(*sub);
    subs.emplace_back(sub, cmd.get());
  }

  try {
    auto args = expand_config(argc, argv, app);
    std::reverse(args.begin(), args.end());
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    // Every rank parsed the same arguments, so every rank ends here: only
    // rank 0 speaks.
    if (!mpi.is_root()) return e.get_exit_code() == 0 ? 0 : static_cast<int>(ExitCode::Usage);
    const int rc = app.exit(e, std::cout, std::cerr);
    return rc == 0 ? 0 : static_cast<int>(ExitCode::Usage);
  }

  if (show_version) {
    out << version_text(mpi) << '\n';
    return 0;
  }
  for (auto& [sub, cmd] : subs) {
    if (sub->parsed()) {
      RunContext ctx{mpi, out, progress};
      return cmd->run(ctx);
    }
  }
  // No subcommand: the main job, as documented.
  out << app.help() << '\n';
  return 0;
}

}  // namespace
}  // namespace shardroof

int main(int argc, char** argv) {
  using namespace shardroof;
  std::unique_ptr<MpiSession> mpi;
  try {
    mpi = std::make_unique<MpiSession>(&argc, &argv);
  } catch (const std::exception& e) {
    std::cerr << "shardroof: error: cannot start MPI: " << e.what() << '\n';
    return static_cast<int>(ExitCode::Runtime);
  }
  int code = 0;
  try {
    code = run_main(*mpi, argc, argv);
  } catch (const Error& e) {
    if (e.agreed()) {
      if (mpi->is_root()) std::cerr << "shardroof: error: " << e.what() << '\n' << std::flush;
      return static_cast<int>(e.code());
    }
    std::cerr << "shardroof: error (rank " << mpi->rank() << "): " << e.what() << '\n' << std::flush;
    code = static_cast<int>(e.code());
    if (mpi->size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
  } catch (const std::exception& e) {
    std::cerr << "shardroof: error (rank " << mpi->rank() << "): " << e.what() << '\n' << std::flush;
    code = static_cast<int>(ExitCode::Runtime);
    if (mpi->size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
  }
  return code;
}
