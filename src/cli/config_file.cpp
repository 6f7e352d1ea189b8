#include "cli/config_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "cli/toml_text.h"

#include "util/error.h"

namespace shardroof {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = static_cast<std::size_t>(-1);
  for (const auto& c : candidates) {
    const auto d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::vector<std::string> config_keys(const CLI::App& command) {
  std::vector<std::string> keys;
  for (const CLI::Option* opt : command.get_options()) {
    // A flag read before the command line is parsed (--blas-kernel) is
    // not configurable: a file could not set it in time.
    if (!opt->get_configurable()) continue;
    for (const auto& name : opt->get_lnames()) {
      if (name != "help" && name != "config") keys.push_back(name);
    }
  }
  return keys;
}

namespace {

std::string value_text(const toml::node& node, const std::string& key, const std::string& path) {
  if (auto s = node.value<std::string>(); s && node.is_string()) return *s;
  if (node.is_integer()) return std::to_string(*node.value<long long>());
  if (node.is_floating_point()) {
    std::ostringstream os;
    os.precision(17);
    os << *node.value<double>();
    return os.str();
  }
  if (node.is_boolean()) return *node.value<bool>() ? "1" : "0";
  if (const auto* arr = node.as_array()) {
    std::string out;
    for (const auto& item : *arr) {
      if (!out.empty()) out += ',';
      out += value_text(item, key, path);
    }
    return out;
  }
  const auto src = node.source();
  throw_usage("{}:{}: key '{}' must be a string, number, boolean or array", path, src.begin.line, key);
}

}  // namespace

std::vector<std::string> config_file_to_args(const std::string& path, const std::string& command,
                                             const std::vector<std::string>& known_keys) {
  std::ifstream in(path);
  if (!in) throw_usage("--config: cannot read '{}'", path);
  std::stringstream buf;
  buf << in.rdbuf();
  return config_text_to_args(buf.str(), path, command, known_keys);
}

std::vector<std::string> config_text_to_args(const std::string& text, const std::string& path,
                                             const std::string& command,
                                             const std::vector<std::string>& known_keys) {
  const toml::table root = parse_toml_text(text, path);

  std::vector<std::string> args;
  const auto add_table = [&](const toml::table& table) {
    for (const auto& [k, v] : table) {
      const std::string key(k.str());
      if (v.is_table()) continue;  // command tables are handled below
      if (std::find(known_keys.begin(), known_keys.end(), key) == known_keys.end()) {
        throw_usage("{}:{}: unknown key '{}' for '{}' (did you mean '{}'?)", path, v.source().begin.line,
                    key, command, closest_match(key, known_keys));
      }
      args.push_back("--" + key);
      args.push_back(value_text(v, key, path));
    }
  };
  add_table(root);
  for (const auto& [k, v] : root) {
    if (!v.is_table()) continue;
    const std::string name(k.str());
    // Tables for other commands may share one file; only this command's is read.
    static const std::vector<std::string> kCommands = {"coll", "sweep", "peak", "predict", "link"};
    if (name == command) {
      add_table(*v.as_table());
    } else if (std::find(kCommands.begin(), kCommands.end(), name) == kCommands.end()) {
      throw_usage("{}:{}: unknown table [{}] (tables are named after commands: coll, sweep, peak, predict, link)",
                  path, v.source().begin.line, name);
    }
  }
  return args;
}

namespace {

std::string toml_value_text(const toml::node& node) {
  if (node.is_string()) return *node.value<std::string>();
  if (node.is_integer()) return std::to_string(*node.value<long long>());
  if (node.is_floating_point()) return fmt::format("{}", *node.value<double>());
  if (node.is_boolean()) return *node.value<bool>() ? "1" : "0";
  if (const auto* arr = node.as_array()) {
    std::string out;
    for (const auto& item : *arr) out += (out.empty() ? "" : ",") + toml_value_text(item);
    return out;
  }
  throw RuntimeError("built-in default config: unsupported value");
}

}  // namespace

void apply_config_defaults(CLI::App& app, std::string_view text, std::string_view source) {
  const toml::table root = toml::parse(text, source);
  for (const auto& [key, value] : root) {
    CLI::Option* opt = app.get_option_no_throw("--" + std::string(key.str()));
    if (!opt) throw RuntimeError(fmt::format("built-in default config: unknown key '{}'", key.str()));
    opt->run_callback_for_default()->default_val(toml_value_text(value));
  }
}

}  // namespace shardroof
