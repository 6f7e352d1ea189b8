// A subcommand of `shardroof`: it declares its flags on a CLI11 subcommand
// (values land in its own typed settings), checks them, then runs.
// Each command lives in src/commands/<name>.cpp and is listed once in main.
#pragma once

#include <CLI/CLI.hpp>

#include <iosfwd>
#include <memory>
#include <string>

#include "util/mpi_session.h"

namespace shardroof {

struct RunContext {
  MpiSession& mpi;
  std::ostream& out;       // the report: stdout on rank 0, discarded elsewhere
  std::ostream& progress;  // progress lines: stderr on rank 0, discarded elsewhere
  // The rows and diagnostics behind the answer (tables, headers, per-point
  // lines): `out` with -v/--detail, discarded otherwise, so that a run's
  // default output is its answer block and where its files went.
  std::ostream& detail;
  bool force = false;      // --force: overwrite existing output files (see agree_output_path)
};

class Command {
 public:
  virtual ~Command() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // Declares this command's flags. Every flag's long name is also its key
  // in a --config TOML file.
  virtual void add_options(CLI::App& app) = 0;
  // Returns the process exit status (see ExitCode); throws Error on failure.
  virtual int run(RunContext& ctx) = 0;
};

std::unique_ptr<Command> make_coll_command();
std::unique_ptr<Command> make_sweep_command();
std::unique_ptr<Command> make_peak_command();
std::unique_ptr<Command> make_predict_command();
std::unique_ptr<Command> make_link_command();
std::unique_ptr<Command> make_combine_command();
std::unique_ptr<Command> make_report_command();

}  // namespace shardroof
