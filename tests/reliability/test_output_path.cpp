#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "commands/output_path.h"
#include "report/results_file.h"
#include "util/error.h"

namespace shardroof {
namespace {

namespace fs = std::filesystem;

class OutputPath : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("shardroof-output-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  void touch(const std::string& name) const { std::ofstream(at(name)) << "{}\n"; }
  fs::path dir_;
};

TEST_F(OutputPath, AFreeNameIsKept) { EXPECT_EQ(choose_output_path(at("r.json"), false), at("r.json")); }

TEST_F(OutputPath, AnExistingFileGetsAFreshNumberedName) {
  touch("r.json");
  EXPECT_EQ(choose_output_path(at("r.json"), false), at("r-1.json"));
  touch("r-1.json");
  touch("r-2.json");
  EXPECT_EQ(choose_output_path(at("r.json"), false), at("r-3.json"));
}

TEST_F(OutputPath, ForceOverwrites) {
  touch("r.json");
  EXPECT_EQ(choose_output_path(at("r.json"), true), at("r.json"));
}

TEST_F(OutputPath, NamesWithoutExtensionOrDirectory) {
  touch("results");
  EXPECT_EQ(choose_output_path(at("results"), false), at("results-1"));
  EXPECT_EQ(choose_output_path("shardroof-surely-absent.json", false), "shardroof-surely-absent.json");
}

TEST_F(OutputPath, ADirectoryIsNotRenamedAway) {
  EXPECT_EQ(choose_output_path(dir_.string(), false), dir_.string());
  EXPECT_THROW(check_writable(choose_output_path(dir_.string(), false), "--json"), UsageError);
}

TEST_F(OutputPath, UnwritablePlacesAreUsageErrors) {
  EXPECT_THROW(check_writable(at("missing/r.json"), "--json"), UsageError);
  EXPECT_THROW(check_writable(dir_.string(), "--json"), UsageError);
  EXPECT_NO_THROW(check_writable(at("r.json"), "--json"));
  EXPECT_FALSE(fs::exists(at("r.json"))) << "the check leaves no file behind";
}

// A directory nobody may write into, root included (CI runs as root, who
// may write into any ordinary directory whatever its mode): sysctl
// directories refuse new entries to everyone. The test first makes sure the
// place really is unwritable, so it cannot pass by accident.
TEST_F(OutputPath, ADirectoryWithoutWritePermissionIsAUsageError) {
  const fs::path locked = "/proc/sys/kernel";
  ASSERT_TRUE(fs::is_directory(locked)) << locked << " is missing: this test needs Linux's /proc";
  const fs::path target = locked / "shardroof-r.json";
  ASSERT_FALSE(std::ofstream(target).is_open()) << "this process can create " << target;
  try {
    check_writable(target.string(), "--json");
    ADD_FAILURE() << "no error for a directory without write permission";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("directory '/proc/sys/kernel' is not writable"), std::string::npos)
        << e.what();
  }
}

TEST_F(OutputPath, MissingInputsAreUsageErrors) {
  EXPECT_THROW(check_readable(at("absent.json"), "--input"), UsageError);
  EXPECT_THROW(check_readable(dir_.string(), "--input"), UsageError);
  EXPECT_THROW(check_readable("", "--input"), UsageError);
  touch("present.json");
  EXPECT_NO_THROW(check_readable(at("present.json"), "--input"));
}

TEST_F(OutputPath, AtomicWritesLeaveNoTemporaryFiles) {
  write_file_atomically(at("r.json"), "{\"a\": 1}\n");
  write_file_atomically(at("r.json"), "{\"a\": 2}\n");
  std::ifstream in(at("r.json"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "{\"a\": 2}\n");
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1);
}

}  // namespace
}  // namespace shardroof
