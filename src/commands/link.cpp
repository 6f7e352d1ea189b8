// `shardroof link`: placeholder until the command is implemented.
#include "cli/command.h"
#include "util/error.h"

namespace shardroof {
namespace {

class PendingCommand final : public Command {
 public:
  std::string name() const override { return "link"; }
  std::string description() const override { return "(not implemented yet)"; }
  void add_options(CLI::App&) override {}
  int run(RunContext&) override { throw RuntimeError("shardroof link is not implemented yet"); }
};

}  // namespace

std::unique_ptr<Command> make_link_command() { return std::make_unique<PendingCommand>(); }

}  // namespace shardroof
