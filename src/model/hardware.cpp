#include "model/hardware.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <toml++/toml.h>
#include <utility>

#include "model/toml_fields.h"
#include "util/error.h"

namespace shardroof::model {
namespace {

using toml_fields::join_names;
using toml_fields::looks_like_path;
using toml_fields::read_text;
using toml_fields::reject_unknown_keys;
using toml_fields::where;

struct EmbeddedPreset {
  std::string_view name;
  std::string_view text;
};

constexpr EmbeddedPreset kBuiltinPresets[] = {
#include "shardroof/hardware_presets.inc"
};

template <class Map>
std::string join_map_keys(const Map& m) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : m) keys.push_back(k);
  return join_names(keys);
}

// A positive, finite number (TOML integer or float) at `key` in `table`.
double positive_number(const toml::table& table, std::string_view key, const std::string& context,
                       const std::string& origin, bool allow_zero = false) {
  const toml::node* node = table.get(key);
  if (!node) throw_usage("{}: {} has no '{}'", origin, context, key);
  std::optional<double> v;
  if (const auto* f = node->as_floating_point()) v = f->get();
  if (const auto* i = node->as_integer()) v = static_cast<double>(i->get());
  if (!v) throw_usage("{}: {}.{} must be a number", where(*node, origin), context, key);
  if (!std::isfinite(*v) || *v < 0 || (!allow_zero && *v == 0))
    throw_usage("{}: {}.{} must be {} (got {})", where(*node, origin), context, key,
                allow_zero ? "zero or more" : "positive", *v);
  return *v;
}

std::string optional_string(const toml::table& table, std::string_view key, const std::string& origin) {
  const toml::node* node = table.get(key);
  if (!node) return {};
  const auto* s = node->as_string();
  if (!s) throw_usage("{}: '{}' must be a string", where(*node, origin), key);
  return s->get();
}

}  // namespace

const std::vector<std::pair<std::string, int>>& preset_datatypes() {
  static const std::vector<std::pair<std::string, int>> types = {
      {"double", 8}, {"float", 4}, {"bfloat16", 2}, {"half", 2}, {"int8", 1}};
  return types;
}

int datatype_size(std::string_view datatype) {
  for (const auto& [name, size] : preset_datatypes())
    if (name == datatype) return size;
  return 0;
}

const LinkPreset& HardwarePreset::link(std::string_view link_name) const {
  const std::string key(link_name.empty() ? std::string_view(default_link) : link_name);
  const auto it = links.find(key);
  if (it != links.end()) return it->second;
  for (const auto& [link_key, link] : links)
    if (std::find(link.aliases.begin(), link.aliases.end(), key) != link.aliases.end()) return link;
  throw_usage("--link: preset '{}' has no link '{}' (it has: {})", name, key, join_map_keys(links));
}

std::string HardwarePreset::default_inter_link() const {
  std::string slowest = default_link;
  double rate = 0;
  for (const auto& [name_of, l] : links)
    if (name_of != default_link && (rate == 0 || l.bytes_per_s < rate)) {
      slowest = name_of;
      rate = l.bytes_per_s;
    }
  return slowest;
}

double HardwarePreset::flops_for(std::string_view datatype) const {
  const auto it = flops.find(std::string(datatype));
  if (it == flops.end())
    throw_usage("--datatype {}: preset '{}' lists no FLOP/s for {} (it has: {})", datatype, name, datatype,
                join_map_keys(flops));
  return it->second;
}

HardwarePreset parse_hardware_preset(std::string_view toml_text, const std::string& origin) {
  toml::table root;
  try {
    root = toml::parse(toml_text, origin);
  } catch (const toml::parse_error& e) {
    throw_usage("{}:{}: not valid TOML: {}", origin, e.source().begin.line, e.description());
  }
  reject_unknown_keys(root, {"name", "description", "default_link", "flops", "memory", "links", "published"}, "the preset",
                      origin);
  HardwarePreset hw;
  hw.origin = origin;
  hw.name = optional_string(root, "name", origin);
  if (hw.name.empty()) throw_usage("{}: the preset has no 'name'", origin);
  hw.description = optional_string(root, "description", origin);

  const auto* flops = root.get_as<toml::table>("flops");
  if (!flops || flops->empty())
    throw_usage("{}: the preset needs a [flops] table (datatype = FLOP/s, e.g. bfloat16 = 1.97e14)", origin);
  std::vector<std::string_view> type_names;
  for (const auto& [name, size] : preset_datatypes()) type_names.push_back(name);
  reject_unknown_keys(*flops, type_names, "[flops]", origin);
  for (const auto& [key, node] : *flops)
    hw.flops[std::string(key.str())] = positive_number(*flops, key.str(), "flops", origin);

  const auto* memory = root.get_as<toml::table>("memory");
  if (!memory) throw_usage("{}: the preset needs a [memory] table with bytes_per_s", origin);
  reject_unknown_keys(*memory, {"bytes_per_s"}, "[memory]", origin);
  hw.memory_bytes_per_s = positive_number(*memory, "bytes_per_s", "memory", origin);

  const auto* links = root.get_as<toml::table>("links");
  if (!links || links->empty())
    throw_usage("{}: the preset needs at least one link, e.g. [links.ici] with bytes_per_s and latency_s",
                origin);
  for (const auto& [key, node] : *links) {
    const auto* t = node.as_table();
    const std::string context = fmt::format("links.{}", key.str());
    if (!t) throw_usage("{}: '{}' must be a table", where(node, origin), context);
    reject_unknown_keys(*t, {"description", "bytes_per_s", "latency_s", "aliases"}, "[" + context + "]", origin);
    LinkPreset link;
    link.name = std::string(key.str());
    link.description = optional_string(*t, "description", origin);
    link.bytes_per_s = positive_number(*t, "bytes_per_s", context, origin);
    link.latency_s = positive_number(*t, "latency_s", context, origin, /*allow_zero=*/true);
    if (const auto* node_aliases = t->get("aliases")) {
      const auto* list = node_aliases->as_array();
      if (!list) throw_usage("{}: '{}.aliases' must be a list of names", where(*node_aliases, origin), context);
      for (const auto& a : *list) {
        const auto alias = a.value<std::string>();
        if (!alias || alias->empty())
          throw_usage("{}: '{}.aliases' must be a list of names", where(a, origin), context);
        link.aliases.push_back(*alias);
      }
    }
    hw.links.emplace(link.name, std::move(link));
  }
  // A name means one link: no alias may be another link's name or alias.
  std::map<std::string, std::string> owner;
  for (const auto& [key, link] : hw.links) owner.emplace(key, key);
  for (const auto& [key, link] : hw.links)
    for (const auto& alias : link.aliases)
      if (const auto [it, fresh] = owner.emplace(alias, key); !fresh)
        throw_usage("{}: the alias '{}' of links.{} is already a name of links.{}", origin, alias, key, it->second);
  hw.default_link = optional_string(root, "default_link", origin);
  if (hw.default_link.empty()) {
    if (hw.links.size() != 1)
      throw_usage("{}: the preset has {} links; name one with default_link", origin, hw.links.size());
    hw.default_link = hw.links.begin()->first;
  }
  if (!hw.links.count(hw.default_link))
    throw_usage("{}: default_link '{}' is not one of its links ({})", origin, hw.default_link,
                join_map_keys(hw.links));
  // [[published]]: collective figures measured and published for this
  // hardware, each with its source.
  if (const toml::node* node = root.get("published")) {
    const auto* list = node->as_array();
    if (!list) throw_usage("{}: 'published' must be a list of tables ([[published]])", where(*node, origin));
    for (const toml::node& item : *list) {
      const auto* t = item.as_table();
      if (!t) throw_usage("{}: each [[published]] must be a table", where(item, origin));
      reject_unknown_keys(*t, {"collective", "algorithm", "ranks", "link", "busbw_bytes_per_s", "source"},
                          "[[published]]", origin);
      PublishedCollective p;
      p.collective = optional_string(*t, "collective", origin);
      p.algorithm = optional_string(*t, "algorithm", origin);
      p.link = optional_string(*t, "link", origin);
      p.source = optional_string(*t, "source", origin);
      p.ranks = static_cast<int>(positive_number(*t, "ranks", "[[published]]", origin));
      p.busbw_bytes_per_s = positive_number(*t, "busbw_bytes_per_s", "[[published]]", origin);
      if (p.collective.empty() || p.source.empty())
        throw_usage("{}: each [[published]] needs a collective and its source", where(item, origin));
      if (p.link.empty()) p.link = hw.default_link;
      hw.link(p.link);
      hw.published.push_back(std::move(p));
    }
  }
  return hw;
}

std::vector<std::string> builtin_preset_names() {
  std::vector<std::string> names;
  for (const auto& p : kBuiltinPresets) names.emplace_back(p.name);
  std::sort(names.begin(), names.end());
  return names;
}

std::string_view builtin_preset_text(std::string_view name) {
  for (const auto& p : kBuiltinPresets)
    if (p.name == name) return p.text;
  return {};
}

HardwarePreset load_hardware_preset(const std::string& name_or_path) {
  if (name_or_path.empty()) throw_usage("--hw: empty preset name");
  namespace fs = std::filesystem;
  std::error_code ec;
  if (looks_like_path(name_or_path) || fs::is_regular_file(name_or_path, ec)) {
    if (!fs::is_regular_file(name_or_path, ec))
      throw_usage("--hw: no preset file '{}' (built-in presets: {})", name_or_path,
                  join_names(builtin_preset_names()));
    return parse_hardware_preset(read_text(name_or_path, "--hw"), name_or_path);
  }
  if (const char* env = std::getenv("SHARDROOF_HARDWARE_DIR"); env && *env) {
    const fs::path file = fs::path(env) / (name_or_path + ".toml");
    if (fs::is_regular_file(file, ec)) return parse_hardware_preset(read_text(file, "--hw"), file.string());
  }
#ifdef SHARDROOF_SOURCE_HARDWARE_DIR
  // The source tree's copy (named as in the repository), when it still exists.
  const fs::path source_file = fs::path(SHARDROOF_SOURCE_HARDWARE_DIR) / (name_or_path + ".toml");
  if (fs::is_regular_file(source_file, ec))
    return parse_hardware_preset(read_text(source_file, "--hw"), "configs/hardware/" + name_or_path + ".toml");
#endif
  const std::string_view text = builtin_preset_text(name_or_path);
  if (text.empty())
    throw_usage("--hw: unknown preset '{}' (built-in presets: {}; or give a TOML file)", name_or_path,
                join_names(builtin_preset_names()));
  return parse_hardware_preset(text, "built-in:" + name_or_path);
}

Ceilings preset_ceilings(const HardwarePreset& hw, std::string_view link_name, std::string_view datatype) {
  const LinkPreset& link = hw.link(link_name);
  Ceilings c;
  c.flops_per_s = hw.flops_for(datatype);
  c.memory_bytes_per_s = hw.memory_bytes_per_s;
  c.link_bytes_per_s = link.bytes_per_s;
  c.latency_s = link.latency_s;
  return c;
}

}  // namespace shardroof::model
