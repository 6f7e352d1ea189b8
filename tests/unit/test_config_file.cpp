// cli/config_file.h: TOML config files become flag arguments.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/config_file.h"
#include "util/error.h"

namespace shardroof {
namespace {

using Args = std::vector<std::string>;

const std::vector<std::string> kCollKeys = {"collective", "minbytes", "maxbytes", "datatype", "iters", "check", "sizes"};

// A config file in the test's temporary directory, removed afterwards.
class ConfigFile : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = (std::filesystem::temp_directory_path() /
             (std::string("shardroof_cfg_") + info->name() + "_" + std::to_string(::getpid()) + ".toml"))
                .string();
    std::ofstream(path_) << text;
    return path_;
  }
  void TearDown() override {
    if (!path_.empty()) std::filesystem::remove(path_);
  }
  // The UsageError message config_file_to_args throws for `text`.
  std::string error_for(const std::string& text) {
    try {
      config_file_to_args(write(text), "coll", kCollKeys);
    } catch (const UsageError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no UsageError for:\n" << text;
    return {};
  }
  std::string path_;
};

// The flags as (name, value) pairs. Keys within one table come in the TOML
// library's order (not necessarily the file's), which is harmless because
// a key appears once per table.
std::vector<std::pair<std::string, std::string>> pairs(const Args& args) {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t i = 0; i + 1 < args.size(); i += 2) out.emplace_back(args[i], args[i + 1]);
  return out;
}

TEST_F(ConfigFile, GoodFileBecomesFlags) {
  const auto path = write(
      "# a comment\n"
      "collective = \"reduce_scatter\"\n"
      "maxbytes = \"32M\"\n"
      "iters = 7\n"
      "check = false\n"
      "sizes = [64, 128]\n");
  const Args args = config_file_to_args(path, "coll", kCollKeys);
  ASSERT_EQ(args.size(), 10u);
  auto got = pairs(args);
  std::sort(got.begin(), got.end());
  const std::vector<std::pair<std::string, std::string>> want = {
      {"--check", "0"}, {"--collective", "reduce_scatter"}, {"--iters", "7"}, {"--maxbytes", "32M"},
      {"--sizes", "64,128"}};
  EXPECT_EQ(got, want);
}

TEST_F(ConfigFile, CommandTableFollowsTopLevelAndOtherCommandsAreIgnored) {
  const auto path = write(
      "iters = 5\n"
      "[coll]\n"
      "iters = 9\n"
      "datatype = \"half\"\n"
      "[sweep]\n"
      "B = 1024\n");
  const auto got = pairs(config_file_to_args(path, "coll", kCollKeys));
  // The table's flags come after the top level's, so they win (last flag
  // wins); nothing of [sweep] appears.
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], (std::pair<std::string, std::string>{"--iters", "5"}));
  std::vector<std::pair<std::string, std::string>> rest(got.begin() + 1, got.end());
  std::sort(rest.begin(), rest.end());
  EXPECT_EQ(rest, (std::vector<std::pair<std::string, std::string>>{{"--datatype", "half"}, {"--iters", "9"}}));
}

TEST_F(ConfigFile, EmptyFileGivesNoFlags) {
  EXPECT_TRUE(config_file_to_args(write(""), "coll", kCollKeys).empty());
}

TEST_F(ConfigFile, MalformedTomlNamesTheLine) {
  const auto msg = error_for("iters = 5\ncheck = 1\ndatatype = = \"float\"\n");
  EXPECT_NE(msg.find(":3:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("malformed TOML"), std::string::npos) << msg;
}

TEST_F(ConfigFile, UnknownKeySuggestsTheClosest) {
  const auto msg = error_for("iters = 5\ndatatyp = \"float\"\n");
  EXPECT_NE(msg.find("datatyp"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'datatype'"), std::string::npos) << msg;
  EXPECT_NE(msg.find(":2:"), std::string::npos) << msg;
}

TEST_F(ConfigFile, UnknownKeyInsideTheCommandTable) {
  const auto msg = error_for("[coll]\nmaxbyte = 5\n");
  EXPECT_NE(msg.find("did you mean 'maxbytes'"), std::string::npos) << msg;
}

TEST_F(ConfigFile, UnknownTableIsAnError) {
  const auto msg = error_for("[colll]\niters = 5\n");
  EXPECT_NE(msg.find("unknown table [colll]"), std::string::npos) << msg;
}

TEST_F(ConfigFile, UnsupportedValueTypeIsAnError) {
  const auto msg = error_for("iters = 1979-05-27\n");
  EXPECT_NE(msg.find("iters"), std::string::npos) << msg;
}

TEST(ConfigFileMissing, UnreadableFileIsAUsageError) {
  EXPECT_THROW(config_file_to_args("/nonexistent/shardroof.toml", "coll", kCollKeys), UsageError);
}

TEST(ClosestMatch, EditDistance) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("Iters", "iters"), 0u);  // case-insensitive
  EXPECT_EQ(closest_match("maxbyte", kCollKeys), "maxbytes");
  EXPECT_EQ(closest_match("colective", kCollKeys), "collective");
}

}  // namespace
}  // namespace shardroof
