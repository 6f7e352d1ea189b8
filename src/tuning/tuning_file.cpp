#include "tuning/tuning_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "cli/toml_text.h"

#include "cli/config_file.h"
#include "collectives/algorithms.h"
#include "collectives/traits.h"
#include "shardroof/default_tuning.h"
#include "util/error.h"
#include "util/units.h"

namespace shardroof {
namespace {

std::size_t line_of(const toml::node& node) { return node.source().begin.line; }

// Every key of `table` must be one of `known`.
void check_keys(const toml::table& table, const std::vector<std::string>& known, const std::string& source,
                const std::string& what) {
  for (const auto& [k, v] : table) {
    const std::string key(k.str());
    if (std::find(known.begin(), known.end(), key) == known.end())
      throw_usage("{}:{}: unknown key '{}' in {} (did you mean '{}'?)", source, line_of(v), key, what,
                  closest_match(key, known));
  }
}

long long integer(const toml::node& node, const std::string& key, long long min, const std::string& source) {
  const auto v = node.value<long long>();
  if (!node.is_integer() || !v || *v < min)
    throw_usage("{}:{}: '{}' must be an integer of at least {}", source, line_of(node), key, min);
  return *v;
}

coll::CollectiveKind collective(const toml::node& node, const std::string& source) {
  const auto name = node.value<std::string>();
  const auto kind = name ? coll::parse_collective(*name) : std::nullopt;
  if (!node.is_string() || !kind)
    throw_usage("{}:{}: unknown collective {} ({})", source, line_of(node),
                name ? "'" + *name + "'" : std::string("value"), coll::collective_names());
  return *kind;
}

// A field of [[measured]] as text.
std::string field_text(const toml::node& node, const std::string& key, const std::string& source) {
  if (node.is_string()) return *node.value<std::string>();
  if (node.is_integer()) return std::to_string(*node.value<long long>());
  if (node.is_floating_point()) return fmt::format("{}", *node.value<double>());
  throw_usage("{}:{}: '{}' in [[measured]] must be a string or a number", source, line_of(node), key);
}

coll::TuningOrigin parse_origin(const toml::table& t, const std::string& source) {
  coll::TuningOrigin o;
  const toml::node* ranks = t.get("ranks");
  const toml::node* kinds = t.get("collectives");
  if (!ranks || !kinds) throw_usage("{}:{}: [[measured]] needs 'ranks' and 'collectives'", source, line_of(t));
  o.ranks = static_cast<int>(integer(*ranks, "ranks", 1, source));
  const toml::array* list = kinds->as_array();
  if (!list) throw_usage("{}:{}: 'collectives' must be an array of names", source, line_of(*kinds));
  for (const toml::node& k : *list) o.kinds.push_back(collective(k, source));
  if (const toml::node* lo = t.get("min_bytes")) o.min_bytes = static_cast<std::uint64_t>(integer(*lo, "min_bytes", 0, source));
  if (const toml::node* hi = t.get("max_bytes")) o.max_bytes = static_cast<std::uint64_t>(integer(*hi, "max_bytes", 0, source));
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    if (key != "ranks" && key != "collectives" && key != "min_bytes" && key != "max_bytes")
      o.fields.emplace_back(key, field_text(v, key, source));
  }
  return o;
}

coll::TuningRule parse_rule(const toml::table& t, const std::string& source) {
  check_keys(t, {"collective", "ranks", "max_bytes", "order", "segment_bytes"}, source, "a rule");
  const toml::node* kind = t.get("collective");
  const toml::node* ranks = t.get("ranks");
  const toml::node* order = t.get("order");
  if (!kind || !ranks || !order)
    throw_usage("{}:{}: a rule needs 'collective', 'ranks' and 'order'", source, line_of(t));
  coll::TuningRule r;
  r.kind = collective(*kind, source);
  r.ranks = static_cast<int>(integer(*ranks, "ranks", 1, source));
  if (const toml::node* m = t.get("max_bytes")) r.max_bytes = static_cast<std::uint64_t>(integer(*m, "max_bytes", 0, source));
  if (const toml::node* s = t.get("segment_bytes"))
    r.segment_bytes = static_cast<std::size_t>(integer(*s, "segment_bytes", 0, source));
  const toml::array* list = order->as_array();
  if (!list || list->empty()) throw_usage("{}:{}: 'order' must be a non-empty array of implementations", source, line_of(*order));
  for (const toml::node& item : *list) {
    const auto name = item.value<std::string>();
    const auto algorithm = name ? coll::parse_algorithm(*name) : std::nullopt;
    const bool native = name && *name == coll::kNativeImpl;
    if (!item.is_string() || !(native || (algorithm && *algorithm != coll::Algorithm::Auto)))
      throw_usage("{}:{}: unknown implementation {} in 'order' (ring, pairwise, direct, native)", source,
                  line_of(item), name ? "'" + *name + "'" : std::string("value"));
    if (algorithm && !coll::supports(*algorithm, r.kind))
      throw_usage("{}:{}: there is no {} {}", source, line_of(item), *name, coll::to_string(r.kind));
    r.order.push_back(*name);
  }
  return r;
}

// TOML basic string.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string name_list(const std::vector<std::string>& names) {
  std::string out = "[";
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + quoted(names[i]);
  return out + "]";
}

}  // namespace

coll::TuningTable parse_tuning_toml(const std::string& text, const std::string& source) {
  const toml::table root = parse_toml_text(text, source);
  check_keys(root, {"measured", "auto"}, source, "a tuning table");
  coll::TuningTable table;
  if (const toml::node* m = root.get("measured")) {
    const toml::array* list = m->as_array();
    if (!list) throw_usage("{}:{}: 'measured' must be an array of tables ([[measured]])", source, line_of(*m));
    for (const toml::node& item : *list) {
      const toml::table* t = item.as_table();
      if (!t) throw_usage("{}:{}: 'measured' must be an array of tables ([[measured]])", source, line_of(item));
      table.measured.push_back(parse_origin(*t, source));
    }
  }
  if (const toml::node* a = root.get("auto")) {
    const toml::table* t = a->as_table();
    if (!t) throw_usage("{}:{}: 'auto' must be a table ([auto])", source, line_of(*a));
    check_keys(*t, {"rules"}, source, "[auto]");
    if (const toml::node* rules = t->get("rules")) {
      const toml::array* list = rules->as_array();
      if (!list) throw_usage("{}:{}: 'rules' must be an array of tables", source, line_of(*rules));
      for (const toml::node& item : *list) {
        const toml::table* rt = item.as_table();
        if (!rt) throw_usage("{}:{}: a rule must be a table", source, line_of(item));
        coll::TuningRule r = parse_rule(*rt, source);
        for (const coll::TuningRule& other : table.rules)
          if (other.kind == r.kind && other.ranks == r.ranks && other.max_bytes == r.max_bytes)
            throw_usage("{}:{}: a second {} rule for {} ranks with the same max_bytes", source, line_of(item),
                        coll::to_string(r.kind), r.ranks);
        table.rules.push_back(std::move(r));
      }
    }
  }
  table.sort();
  return table;
}

coll::TuningTable read_tuning_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw_usage("--tuning: cannot read '{}'", path);
  std::stringstream buf;
  buf << in.rdbuf();
  return parse_tuning_toml(buf.str(), path);
}

std::string measured_summary(const coll::TuningOrigin& o) {
  std::vector<std::string> kinds;
  for (const auto k : o.kinds) kinds.emplace_back(coll::to_string(k));
  std::string kinds_text;
  for (const auto& k : kinds) kinds_text += (kinds_text.empty() ? "" : ", ") + k;
  std::string out = fmt::format("{} ranks ({}), {} to {}", o.ranks, kinds_text, format_bytes(o.min_bytes),
                                o.max_bytes == coll::kNoUpperBound ? "no bound" : format_bytes(o.max_bytes));
  const auto add = [&](const char* label, const std::string& key) {
    if (const std::string v = o.get(key); !v.empty()) out += fmt::format(", {}{}", label, v);
  };
  add("transport ", "transport");
  add("", "timing");
  add("noise from ", "passes");
  add("", "launches");
  add("host ", "host");
  add("", "date");
  add("load average ", "load_average");
  return out;
}

std::string tuning_toml(const coll::TuningTable& table, const std::vector<std::string>& header) {
  std::string out;
  for (const auto& line : header) out += "# " + line + "\n";
  if (!header.empty() && !table.measured.empty()) {
    out += "#\n# Measured (each line is one [[measured]] below, in order):\n";
    for (const coll::TuningOrigin& o : table.measured) out += "#   " + measured_summary(o) + "\n";
  }
  if (!header.empty()) out += "\n";
  for (const coll::TuningOrigin& o : table.measured) {
    std::vector<std::string> kinds;
    for (const auto k : o.kinds) kinds.emplace_back(coll::to_string(k));
    out += fmt::format("[[measured]]\nranks = {}\ncollectives = {}\nmin_bytes = {}\n", o.ranks, name_list(kinds),
                       o.min_bytes);
    if (o.max_bytes != coll::kNoUpperBound) out += fmt::format("max_bytes = {}\n", o.max_bytes);
    for (const auto& [k, v] : o.fields) out += fmt::format("{} = {}\n", k, quoted(v));
    out += "\n";
  }
  out += "[auto]\nrules = [\n";
  for (const coll::TuningRule& r : table.rules) {
    out += fmt::format("  {{ collective = {}, ranks = {}", quoted(std::string(coll::to_string(r.kind))), r.ranks);
    if (r.max_bytes != coll::kNoUpperBound) out += fmt::format(", max_bytes = {}", r.max_bytes);
    out += fmt::format(", order = {}", name_list(r.order));
    if (r.segment_bytes > 0) out += fmt::format(", segment_bytes = {}", r.segment_bytes);
    out += " },\n";
  }
  out += "]\n";
  return out;
}

const coll::TuningTable& builtin_tuning_table() {
  static const coll::TuningTable table = parse_tuning_toml(kDefaultTuningToml, "configs/tuning/default.toml");
  return table;
}

coll::TuningTable applicable_tuning(const coll::TuningTable& table, const TuningScope& scope,
                                    std::vector<std::string>* notes) {
  coll::TuningTable out = table;
  for (const coll::TuningOrigin& o : table.measured) {
    std::vector<std::string> why;
    const auto differs = [&](const char* key, const std::string& here) {
      const std::string there = o.get(key);
      if (!there.empty() && !here.empty() && there != here) why.push_back(fmt::format("{} {} (here {})", key, there, here));
    };
    differs("transport", scope.transport);
    differs("backend", scope.backend);
    differs("hosts", scope.hosts > 0 ? std::to_string(scope.hosts) : "");
    if (why.empty()) continue;
    out.rules.erase(std::remove_if(out.rules.begin(), out.rules.end(),
                                   [&](const coll::TuningRule& r) {
                                     return r.ranks == o.ranks &&
                                            std::find(o.kinds.begin(), o.kinds.end(), r.kind) != o.kinds.end();
                                   }),
                    out.rules.end());
    if (notes) {
      std::string joined;
      for (const auto& w : why) joined += (joined.empty() ? "" : ", ") + w;
      notes->push_back(fmt::format("the rules for {} ranks were measured with {}: not used", o.ranks, joined));
    }
  }
  return out;
}

}  // namespace shardroof
