// cli/common_flags.h: the flags commands share are spelled, read from a
// config file and checked the same way by every command that takes them.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/config_file.h"
#include "util/error.h"

namespace shardroof {
namespace {

using Args = std::vector<std::string>;

// One command's flags on a CLI11 app, as main declares them.
struct Parsed {
  std::unique_ptr<Command> command;
  CLI::App app;

  explicit Parsed(std::unique_ptr<Command> cmd) : command(std::move(cmd)), app(command->name()) {
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    command->add_options(app);
  }
  // Parses the command line `args`, after the flags of config text `toml`.
  void parse(Args args, const std::string& toml = "") {
    Args all = config_text_to_args(toml, "test.toml", command->name(), config_keys(app));
    all.insert(all.end(), args.begin(), args.end());
    std::reverse(all.begin(), all.end());  // CLI11 takes a vector last argument first
    app.parse(all);
  }
  int value(const std::string& flag) const { return app.get_option(flag)->as<int>(); }
};

// The commands that measure: each takes the timing flags.
using MakeCommand = std::unique_ptr<Command> (*)();
const MakeCommand kMeasuringCommands[] = {make_sweep_command, make_coll_command, make_link_command,
                                          make_peak_command};

// nccl-tests' spellings, ours and a config file's keys land on the same
// settings in sweep, coll, link and peak (peak checks nothing: no -c).
TEST(CommonFlags, EverySpellingOfTheTimingAndCheckFlagsGivesTheSameSettings) {
  struct Spelling {
    Args timing, check;
    std::string toml_timing, toml_check;
  };
  const std::vector<Spelling> spellings = {
      {{"-w", "7", "-n", "3"}, {"-c", "0"}, "", ""},
      {{"--warmup", "7", "--iters", "3"}, {"--check", "0"}, "", ""},
      {{"--warmup_iters=7", "--iters=3"}, {"--check=0"}, "", ""},
      {{}, {}, "warmup_iters = 7\niters = 3\n", "check = 0\n"},
      {{}, {}, "warmup = 7\niters = 3\n", "check = 0\n"},
  };
  for (const MakeCommand make : kMeasuringCommands) {
    for (const auto& s : spellings) {
      Parsed p(make());
      const bool checks = p.app.get_option_no_throw("--check") != nullptr;
      Args line = s.timing;
      if (checks) line.insert(line.end(), s.check.begin(), s.check.end());
      const std::string toml = s.toml_timing + (checks ? s.toml_check : "");
      const std::string what = p.command->name() + " " + ::testing::PrintToString(line) + " " + toml;
      ASSERT_NO_THROW(p.parse(line, toml)) << what;
      EXPECT_EQ(p.value("--warmup"), 7) << what;
      EXPECT_EQ(p.value("--warmup_iters"), 7) << what;
      EXPECT_EQ(p.value("-n"), 3) << what;
      if (checks) {
        EXPECT_EQ(p.value("-c"), 0) << what;
      }
    }
  }
}

// A command takes only the common flags it uses.
TEST(CommonFlags, ACommandDeclaresOnlyTheFlagsItTakes) {
  Parsed peak(make_peak_command());
  EXPECT_EQ(peak.app.get_option_no_throw("--check"), nullptr);
  EXPECT_EQ(peak.app.get_option_no_throw("--datatype"), nullptr);  // peak has --datatypes
  Parsed link(make_link_command());
  EXPECT_EQ(link.app.get_option_no_throw("--backend"), nullptr);
  EXPECT_EQ(link.app.get_option_no_throw("--trace"), nullptr);
  Parsed predict(make_predict_command());
  EXPECT_EQ(predict.app.get_option_no_throw("--iters"), nullptr);
  EXPECT_NE(predict.app.get_option_no_throw("-d"), nullptr);
  EXPECT_NE(predict.app.get_option_no_throw("--D"), nullptr);  // -d and --D are two flags
}

std::string usage_error(const auto& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// One wording for the checks, whichever command runs them.
TEST(CommonFlags, BadValuesAreUsageErrorsWithOneWording) {
  EXPECT_EQ(usage_error([] { timing_plan({-1, 3}); }), "--warmup: must be 0 or more, got -1");
  EXPECT_EQ(usage_error([] { timing_plan({0, 0}); }), "--iters: must be at least 1, got 0");
  EXPECT_EQ(usage_error([] { check_enabled(2); }), "--check: must be 0 or 1, got 2");
  EXPECT_EQ(usage_error([] { backend_flag("tpu"); }), "--backend: 'tpu' is not one of cpu, cuda");
  EXPECT_EQ(usage_error([] { datatype_flag("int32", {coll::DataType::Float, coll::DataType::Double}); }),
            "--datatype: 'int32' is not one of float, double");
  EXPECT_EQ(usage_error([] { check_gemm_flags({"float", "cpu", 1, 1}, Backend::Cpu); }),
            "--tf32 1: needs --backend cuda");
  EXPECT_EQ(usage_error([] { check_gemm_flags({"float", "cpu", 0, 0}, Backend::Cpu); }),
            "--threads: must be at least 1, got 0");
  const TimingPlan t = timing_plan({0, 1});
  EXPECT_EQ(t.warmup, 0);
  EXPECT_EQ(t.iters, 1);
  EXPECT_TRUE(check_enabled(1));
  EXPECT_FALSE(check_enabled(0));
}


TEST(CommonFlags, HardwareGatesTakeAFractionAndNothingElseTakesThem) {
  const ExpectFlag hw = expect_flag("hw:0.7", "--expect-C", false, true);
  EXPECT_DOUBLE_EQ(hw.hardware_fraction, 0.7);
  EXPECT_TRUE(hw.set());
  EXPECT_DOUBLE_EQ(expect_flag("100G", "--expect-C", false, true).at_least, 100e9);
  EXPECT_NE(usage_error([] { expect_flag("hw:0.7", "--expect-busbw", true); }).find("hw: gates are"),
            std::string::npos);
  EXPECT_NE(usage_error([] { expect_flag("hw:1.5", "--expect-C", false, true); }).find("at most 1"),
            std::string::npos);
  EXPECT_NE(usage_error([] { expect_flag("hw:", "--expect-W", false, true); }).find("hw:F takes"), std::string::npos);
  // A bare number stays refused, with the hw: form named.
  const std::string bare = usage_error([] { expect_flag("0.7", "--expect-C", false, true); });
  EXPECT_NE(bare.find("no unit"), std::string::npos) << bare;
  EXPECT_NE(bare.find("hw:F"), std::string::npos) << bare;
  EXPECT_FALSE(expect_flag("", "--expect-C", false, true).set());
}

}  // namespace
}  // namespace shardroof
