// Hardware presets: every built-in preset parses and is complete, lookup by
// name and by file, and bad files end in a clear UsageError.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "model/hardware.h"
#include "model/roofline.h"
#include "util/error.h"

namespace shardroof::model {
namespace {

namespace fs = std::filesystem;

// A scratch directory removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("shardroof-hw-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path p = path_ / name;
    std::ofstream(p) << text;
    return p;
  }
  const fs::path& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

const char* kMinimal = R"(
name = "toy"
default_link = "wire"
[flops]
float = 1e12
[memory]
bytes_per_s = 1e11
[links.wire]
bytes_per_s = 1e10
latency_s = 2e-6
)";

// Expects parse_hardware_preset(text) to throw a UsageError whose message
// contains `needle`.
void expect_usage_error(const std::string& text, const std::string& needle) {
  try {
    parse_hardware_preset(text, "bad.toml");
    ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.toml"), std::string::npos) << e.what();
  }
}

TEST(HardwarePresets, AllBuiltInsAreThere) {
  const std::vector<std::string> expected = {"a100", "b200", "h100", "h200", "tpu-v4p", "tpu-v5e", "tpu-v5p", "tpu-v6e"};
  const auto names = builtin_preset_names();
  for (const auto& name : expected)
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name << " is not built in";
}

TEST(HardwarePresets, EveryBuiltInParsesAndIsComplete) {
  for (const auto& name : builtin_preset_names()) {
    SCOPED_TRACE(name);
    const auto text = builtin_preset_text(name);
    ASSERT_FALSE(text.empty());
    HardwarePreset hw;
    ASSERT_NO_THROW(hw = parse_hardware_preset(text, name));
    EXPECT_EQ(hw.name, name);  // the file name is the preset name
    EXPECT_FALSE(hw.description.empty());
    EXPECT_GT(hw.memory_bytes_per_s, 0);
    EXPECT_TRUE(hw.flops.count("bfloat16"));  // every chip here does bf16 matmuls
    for (const auto& [type, flops] : hw.flops) {
      EXPECT_GT(datatype_size(type), 0) << type;
      EXPECT_GT(flops, 1e12) << type;
    }
    EXPECT_TRUE(hw.links.count(hw.default_link));
    for (const auto& [link_name, link] : hw.links) {
      EXPECT_GT(link.bytes_per_s, 1e9) << link_name;
      EXPECT_GE(link.latency_s, 0) << link_name;
      EXPECT_LT(link.latency_s, 1e-3) << link_name;
      EXPECT_FALSE(link.description.empty()) << link_name;
    }
    // Every preset cites its sources in comments.
    EXPECT_NE(text.find("# Sources:"), std::string_view::npos);
  }
}

TEST(HardwarePresets, BuiltInsMatchTheSourceTree) {
  // The embedded copies are the files in configs/hardware at build time.
  for (const auto& name : builtin_preset_names()) {
    const HardwarePreset hw = load_hardware_preset(name);
    const HardwarePreset embedded = parse_hardware_preset(builtin_preset_text(name), name);
    EXPECT_EQ(hw.flops, embedded.flops) << name;
    EXPECT_EQ(hw.links.size(), embedded.links.size()) << name;
  }
}

TEST(HardwarePresets, TpuV5eReproducesTheBook) {
  const HardwarePreset hw = load_hardware_preset("tpu-v5e");
  EXPECT_EQ(hw.default_link, "ici");
  EXPECT_EQ(hw.link("ici").bytes_per_s, 4.5e10);
  const Ceilings c = preset_ceilings(hw, "ici", "bfloat16");
  Shape sh;
  sh.ranks = 2;
  sh.bytes_per_elem = datatype_size("bfloat16");
  EXPECT_NEAR(d_star_bandwidth(sh, c), 8755, 1);
  EXPECT_NEAR(memory_critical_intensity(c), 240, 1);
}

TEST(HardwarePresets, H100HbmIntensity) {
  const Ceilings c = preset_ceilings(load_hardware_preset("h100"), "", "bfloat16");
  EXPECT_NEAR(memory_critical_intensity(c), 295, 1);
  EXPECT_EQ(c.link_bytes_per_s, 4.5e11);  // default link: NVLink
}

TEST(HardwarePresets, InfiniBandNdrAnswersToIbNdr) {
  for (const char* name : {"h100", "h200", "b200"}) {
    const HardwarePreset hw = load_hardware_preset(name);
    const LinkPreset& by_alias = hw.link("ib-ndr");
    EXPECT_EQ(by_alias.name, "infiniband") << name;
    EXPECT_NE(by_alias.description.find("NDR"), std::string::npos) << name;
    EXPECT_EQ(&by_alias, &hw.link("infiniband")) << name;
  }
  // A100's InfiniBand is HDR: not ib-ndr.
  EXPECT_THROW(load_hardware_preset("a100").link("ib-ndr"), UsageError);
}

TEST(HardwarePresets, AliasesAreNamesAndUnique) {
  const std::string aliased = std::string(kMinimal) + "aliases = [\"cable\"]\n";
  EXPECT_EQ(parse_hardware_preset(aliased, "ok.toml").link("cable").name, "wire");
  expect_usage_error(std::string(kMinimal) + "aliases = \"cable\"\n", "must be a list of names");
  expect_usage_error(std::string(kMinimal) + "aliases = [1]\n", "must be a list of names");
  expect_usage_error(std::string(kMinimal) + "aliases = [\"cable\"]\n[links.cable]\nbytes_per_s = 1e9\nlatency_s = 0\n",
                     "already a name of links.");
}

TEST(HardwarePresets, LoadsFromAFile) {
  TempDir dir;
  const auto path = dir.write("toy.toml", kMinimal);
  const HardwarePreset hw = load_hardware_preset(path.string());
  EXPECT_EQ(hw.name, "toy");
  EXPECT_EQ(hw.origin, path.string());
  const Ceilings c = preset_ceilings(hw, "wire", "float");
  EXPECT_EQ(c.flops_per_s, 1e12);
  EXPECT_EQ(c.link_bytes_per_s, 1e10);
  EXPECT_EQ(c.latency_s, 2e-6);
  EXPECT_EQ(c.memory_bytes_per_s, 1e11);
  EXPECT_EQ(c.reduce_s_per_elem, 0);
}

TEST(HardwarePresets, DirectoryFromTheEnvironmentComesFirst) {
  TempDir dir;
  std::string text = kMinimal;
  text.replace(text.find("\"toy\""), 5, "\"tpu-v5e\"");
  const auto path = dir.write("tpu-v5e.toml", text);
  ::setenv("SHARDROOF_HARDWARE_DIR", dir.path().c_str(), 1);
  const HardwarePreset hw = load_hardware_preset("tpu-v5e");
  ::unsetenv("SHARDROOF_HARDWARE_DIR");
  EXPECT_EQ(hw.origin, path.string());
  EXPECT_EQ(hw.link("").name, "wire");
}

TEST(HardwarePresets, LookupErrorsAreUsageErrors) {
  EXPECT_THROW(load_hardware_preset("no-such-chip"), UsageError);
  EXPECT_THROW(load_hardware_preset("/no/such/file.toml"), UsageError);
  EXPECT_THROW(load_hardware_preset("missing.toml"), UsageError);
  EXPECT_THROW(load_hardware_preset(""), UsageError);
  const HardwarePreset hw = load_hardware_preset("tpu-v5e");
  try {
    hw.link("nvlink");
    ADD_FAILURE() << "no error for a missing link";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("ici"), std::string::npos) << "should list the links: " << e.what();
  }
  EXPECT_THROW(hw.flops_for("double"), UsageError);  // TPUs list bf16 and int8 only
}

TEST(HardwarePresets, BadFilesAreUsageErrors) {
  expect_usage_error("name = \"x\"\n[flops\n", "not valid TOML");
  expect_usage_error("name = \"x\"\n[memory]\nbytes_per_s = 1e11\n[links.a]\nbytes_per_s = 1\nlatency_s = 0\n",
                     "[flops]");
  std::string t = kMinimal;
  expect_usage_error(t.substr(t.find("default_link")), "no 'name'");
  expect_usage_error(std::string(kMinimal) + "colour = \"red\"\n", "unknown key 'colour'");
  std::string typo = kMinimal;
  typo.replace(typo.find("float = "), 5, "flaot");
  expect_usage_error(typo, "unknown key 'flaot'");
  std::string negative = kMinimal;
  negative.replace(negative.find("bytes_per_s = 1e10"), 18, "bytes_per_s = -1e10");
  expect_usage_error(negative, "must be positive");
  std::string text_value = kMinimal;
  text_value.replace(text_value.find("latency_s = 2e-6"), 16, "latency_s = \"2us\"");
  expect_usage_error(text_value, "must be a number");
  std::string no_latency = kMinimal;
  no_latency.erase(no_latency.find("latency_s = 2e-6"), 16);
  expect_usage_error(no_latency, "has no 'latency_s'");
  std::string wrong_default = kMinimal;
  wrong_default.replace(wrong_default.find("\"wire\""), 6, "\"ici\"");
  expect_usage_error(wrong_default, "default_link 'ici'");
  std::string no_memory = kMinimal;
  no_memory.erase(no_memory.find("[memory]"), std::string("[memory]\nbytes_per_s = 1e11\n").size());
  expect_usage_error(no_memory, "[memory]");
}

// Every built-in preset answers every datatype a preset may list: its
// FLOP/s, or a UsageError that names the preset, the datatype asked for and
// every datatype the preset does list (int8 included, where it has it).
TEST(HardwarePresets, EveryDatatypeIsAnsweredOrRefusedByName) {
  for (const auto& name : builtin_preset_names()) {
    const HardwarePreset hw = load_hardware_preset(name);
    for (const auto& [type, size] : preset_datatypes()) {
      if (hw.flops.count(type)) {
        EXPECT_GT(hw.flops_for(type), 0) << name << " " << type;
        continue;
      }
      try {
        hw.flops_for(type);
        ADD_FAILURE() << name << " has no " << type << " FLOP/s but flops_for returned";
      } catch (const UsageError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("preset '" + name + "'"), std::string::npos) << what;
        EXPECT_NE(what.find("for " + type), std::string::npos) << what;
        for (const auto& [listed, flops] : hw.flops) EXPECT_NE(what.find(listed), std::string::npos) << what;
      }
    }
  }
}

TEST(HardwarePresets, DatatypeWithoutFlopsIsRefusedByName) {
  const std::string no_int8 = kMinimal;  // lists float only
  ASSERT_EQ(no_int8.find("int8"), std::string::npos);
  const HardwarePreset hw = parse_hardware_preset(no_int8, "test.toml");
  try {
    hw.flops_for("int8");
    ADD_FAILURE() << "no error for int8";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--datatype int8: preset '" + hw.name + "' lists no FLOP/s for int8 (it has: float)"),
              std::string::npos)
        << e.what();
  }
}

TEST(HardwarePresets, DatatypeSizes) {
  EXPECT_EQ(datatype_size("double"), 8);
  EXPECT_EQ(datatype_size("float"), 4);
  EXPECT_EQ(datatype_size("bfloat16"), 2);
  EXPECT_EQ(datatype_size("half"), 2);
  EXPECT_EQ(datatype_size("int8"), 1);
  EXPECT_EQ(datatype_size("int4"), 0);
}

}  // namespace
}  // namespace shardroof::model
