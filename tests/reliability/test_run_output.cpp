// commands/run_output.h without MPI (one process): what a run publishes,
// how it stops, the lines it ends with and its exit status.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "commands/run_output.h"
#include "util/error.h"
#include "util/interrupt.h"

namespace shardroof {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class RunOutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("shardroof-run-output-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    simulate_interrupt_for_testing(0);
    fs::remove_all(dir_);
  }
  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  RunOutput make(const OutputRequest& paths, const std::string& unit = "sizes", bool writer = true) {
    return RunOutput(nullptr, writer, out_, errors_, "coll", unit, paths);
  }

  fs::path dir_;
  std::ostringstream out_;
  std::ostringstream errors_;
};

TEST(RunProgress, SaysHowFarARunGot) {
  EXPECT_EQ((RunProgress{3, 7}.text("points")), "3 of 7 points");
  EXPECT_EQ((RunProgress{3, std::nullopt}.text("points")), "3 points of the search");
}

TEST_F(RunOutputTest, PublishReplacesTheFilesAfterEveryStep) {
  RunOutput out = make({at("r.json"), at("r.csv"), "", true});
  out.begin_document({{"results", nlohmann::json::array()}});
  out.document()["results"].push_back(1);
  out.publish(1, 2, [] { return std::string("a\n1\n"); });
  EXPECT_EQ(nlohmann::json::parse(read(at("r.json")))["results"], nlohmann::json::array({1}));
  EXPECT_EQ(nlohmann::json::parse(read(at("r.json")))["command"], "coll");
  EXPECT_EQ(read(at("r.csv")), "a\n1\n");
  out.document()["results"].push_back(2);
  out.publish(2, 2, [] { return std::string("a\n1\n2\n"); });
  EXPECT_EQ(nlohmann::json::parse(read(at("r.json")))["results"], nlohmann::json::array({1, 2}));
  EXPECT_EQ(read(at("r.csv")), "a\n1\n2\n");
  // Nothing but the two files: the temporaries were renamed.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 2);
}

TEST_F(RunOutputTest, OnlyTheWritingRankWrites) {
  RunOutput out = make({at("r.json"), "", "", false}, "sizes", /*writer=*/false);
  out.begin_document({});
  out.publish(1, 1);
  out.finish();
  EXPECT_FALSE(fs::exists(at("r.json")));
  EXPECT_EQ(out.exit_status("3 wrong elements"), static_cast<int>(ExitCode::WrongResults));
  EXPECT_EQ(errors_.str(), "");
}

TEST_F(RunOutputTest, ACompleteRunEndsWithTheFilesItWrote) {
  RunOutput out = make({at("r.json"), at("r.csv"), at("t.json"), true});
  out.begin_document({});
  out.publish(2, 2);
  simulate_interrupt_for_testing(SIGTERM);
  // After the last step there is nothing left to stop.
  EXPECT_FALSE(out.stop_requested(2));
  out.finish();
  EXPECT_FALSE(nlohmann::json::parse(read(at("r.json"))).contains("interrupted"));
  out.print_written_files();
  EXPECT_EQ(out_.str(), "# JSON written to " + at("r.json") + "\n# CSV written to " + at("r.csv") +
                            "\n# trace written to " + at("t.json") + " (open it in https://ui.perfetto.dev)\n");
  EXPECT_EQ(out.exit_status(), 0);
  EXPECT_EQ(out.exit_status("3 wrong elements (see #wrong)"), static_cast<int>(ExitCode::WrongResults));
  EXPECT_EQ(errors_.str(), "shardroof: error: 3 wrong elements (see #wrong)\n");
}

TEST_F(RunOutputTest, AnInterruptedRunSaysWhereTheFinishedStepsAre) {
  RunOutput out = make({at("r.json"), "", "", false});
  out.begin_document({});
  out.publish(1, 4);
  EXPECT_FALSE(out.stop_requested(1));
  simulate_interrupt_for_testing(SIGTERM);
  EXPECT_TRUE(out.stop_requested(1));
  EXPECT_TRUE(out.stopped());
  out.finish();
  EXPECT_EQ(nlohmann::json::parse(read(at("r.json")))["interrupted"], "SIGTERM");
  // Interrupted wins over wrong results.
  EXPECT_EQ(out.exit_status("1 wrong element", "the tuning table was not written"),
            static_cast<int>(ExitCode::Interrupted));
  EXPECT_EQ(errors_.str(), "shardroof: interrupted after 1 of 4 sizes; finished sizes are in " + at("r.json") +
                               "; the tuning table was not written\n");
}

TEST_F(RunOutputTest, AnInterruptedRunWithoutFilesSaysSo) {
  RunOutput json_only = make({});
  json_only.publish(0, 3);
  simulate_interrupt_for_testing(SIGINT);
  ASSERT_TRUE(json_only.stop_requested(0));
  EXPECT_EQ(json_only.exit_status(), static_cast<int>(ExitCode::Interrupted));
  EXPECT_EQ(errors_.str(), "shardroof: interrupted after 0 of 3 sizes; no --json file was asked for\n");

  errors_.str("");
  RunOutput with_csv = make({"", "", "", true}, "points");
  with_csv.publish(2, std::nullopt);
  ASSERT_TRUE(with_csv.stop_requested(2));
  EXPECT_EQ(with_csv.exit_status(), static_cast<int>(ExitCode::Interrupted));
  EXPECT_EQ(errors_.str(),
            "shardroof: interrupted after 2 points of the search; no --json or --csv file was asked for\n");
}

TEST_F(RunOutputTest, TheCsvHoldsTheFinishedStepsWithoutAJson) {
  RunOutput out = make({"", at("r.csv"), "", true}, "points");
  out.publish(1, 5, [] { return std::string("D\n16\n"); });
  simulate_interrupt_for_testing(SIGTERM);
  ASSERT_TRUE(out.stop_requested(1));
  out.finish([] { return std::string("D\n16\n"); });
  EXPECT_EQ(read(at("r.csv")), "D\n16\n");
  EXPECT_EQ(out.exit_status(), static_cast<int>(ExitCode::Interrupted));
  EXPECT_EQ(errors_.str(), "shardroof: interrupted after 1 of 5 points; finished points are in " + at("r.csv") + "\n");
}

}  // namespace
}  // namespace shardroof
