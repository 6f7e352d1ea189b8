#include "model/topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include <toml++/toml.h>

#include "model/toml_fields.h"
#include "util/error.h"

namespace shardroof::model {
namespace {

using toml_fields::join_names;
using toml_fields::looks_like_path;
using toml_fields::read_text;
using toml_fields::reject_unknown_keys;

struct EmbeddedTopology {
  std::string_view name;
  std::string_view text;
};

constexpr EmbeddedTopology kBuiltinTopologies[] = {
#include "shardroof/topology_presets.inc"
};

// The most ranks a topology may hold: an MPI communicator's size is an int.
constexpr long long kMaxRanks = std::numeric_limits<int>::max();

// One ring's terms on n ranks moving `bytes`: `steps` latencies per (n-1),
// `passes` times (n-1)/n of the bytes on the link, `reduce` times (n-1)/n of
// the elements reduced (model/collective_cost.cpp's ring_terms).
double ring_terms(long long n, double bytes, double elements, double alpha, double W, double g, double steps,
                  double passes, double reduce) {
  if (n <= 1) return 0;
  const double f = static_cast<double>(n - 1) / static_cast<double>(n);
  return steps * static_cast<double>(n - 1) * alpha + passes * f * bytes / W + reduce * f * elements * g;
}

struct RingShape {
  double steps, passes, reduce;
};

RingShape ring_shape(Collective c) {
  switch (c) {
    case Collective::AllReduce: return {2, 2, 1};
    case Collective::ReduceScatter: return {1, 1, 1};
    case Collective::AllGather: return {1, 1, 0};
  }
  return {2, 2, 1};
}

void check_top(const LevelTopology& t, int top) {
  if (top < 0 || top >= static_cast<int>(t.levels.size()))
    throw_usage("topology {}: no level {} (it has {})", t.name, top, t.levels.size());
}

// A number (TOML integer or float) at `key`, if there is one.
std::optional<double> number_at(const toml::table& table, std::string_view key, const std::string& context,
                                const std::string& origin) {
  const toml::node* node = table.get(key);
  if (!node) return std::nullopt;
  if (const auto* f = node->as_floating_point()) return f->get();
  if (const auto* i = node->as_integer()) return static_cast<double>(i->get());
  throw_usage("{}: {}.{} must be a number", origin, context, key);
}

std::string string_at(const toml::table& table, std::string_view key, const std::string& context,
                      const std::string& origin) {
  const toml::node* node = table.get(key);
  if (!node) return {};
  const auto* s = node->as_string();
  if (!s) throw_usage("{}: {}.{} must be a string", origin, context, key);
  return s->get();
}

void check_level_values(const TopologyLevel& l, const std::string& context, const std::string& origin) {
  if (l.group_size < 1) throw_usage("{}: {}.group_size must be a whole number of 1 or more", origin, context);
  if (l.bytes_per_s_given && !(std::isfinite(l.bytes_per_s) && l.bytes_per_s >= 1))
    throw_usage("{}: {}.bytes_per_s must be at least one byte per second (got {})", origin, context, l.bytes_per_s);
  if (l.latency_s_given && !(std::isfinite(l.latency_s) && l.latency_s >= 0))
    throw_usage("{}: {}.latency_s must be zero or more seconds (got {})", origin, context, l.latency_s);
  if (!(l.oversubscription > 0 && l.oversubscription <= 1))
    throw_usage("{}: {}.oversubscription must be in (0, 1], the share of a group's links that leave it (0.5 for "
                "a 2:1 spine), got {}",
                origin, context, l.oversubscription);
}

void check_ranks(const LevelTopology& t) {
  long long n = 1;
  for (const auto& l : t.levels) {
    n *= l.group_size;
    if (n > kMaxRanks)
      throw_usage("{}: the levels' group sizes multiply to more than {} ranks", t.origin, kMaxRanks);
  }
}

}  // namespace

long long LevelTopology::ranks_up_to(int top) const {
  long long n = 1;
  for (int l = 0; l <= top && l < static_cast<int>(levels.size()); ++l) n *= levels[static_cast<std::size_t>(l)].group_size;
  return n;
}

double ring_flow_bytes_per_s(const LevelTopology& t, int level) {
  check_top(t, level);
  const TopologyLevel& l = t.levels[static_cast<std::size_t>(level)];
  const double below = static_cast<double>(t.ranks_up_to(level - 1));
  return l.bytes_per_s * std::min(1.0, l.oversubscription * below);
}

double hier_flow_bytes_per_s(const TopologyLevel& level) { return level.bytes_per_s * level.oversubscription; }

LinkLevel ring_link(const LevelTopology& t, int top) {
  check_top(t, top);
  LinkLevel link;
  bool crossed = false;
  for (int l = 0; l <= top; ++l) {
    const TopologyLevel& level = t.levels[static_cast<std::size_t>(l)];
    if (level.group_size <= 1) continue;
    const double W = ring_flow_bytes_per_s(t, l);
    link.bytes_per_s = crossed ? std::min(link.bytes_per_s, W) : W;
    link.latency_s = crossed ? std::max(link.latency_s, level.latency_s) : level.latency_s;
    crossed = true;
  }
  return link;
}

double t_comm_ring(const LevelTopology& t, int top, const LevelCollective& c) {
  const LinkLevel link = ring_link(t, top);
  const long long n = t.ranks_up_to(top);
  if (n <= 1) return 0;
  const RingShape r = ring_shape(c.collective);
  return ring_terms(n, c.bytes, c.elements, link.latency_s, link.bytes_per_s, c.reduce_s_per_elem, r.steps, r.passes,
                    r.reduce);
}

double t_comm_hier(const LevelTopology& t, int top, const LevelCollective& c) {
  check_top(t, top);
  const RingShape r = ring_shape(c.collective);
  double total = 0;
  for (int l = 0; l <= top; ++l) {
    const TopologyLevel& level = t.levels[static_cast<std::size_t>(l)];
    // The piece each rank holds after the levels below reduced (or before
    // they gather): S / P_{l-1}.
    const double below = static_cast<double>(t.ranks_up_to(l - 1));
    total += ring_terms(level.group_size, c.bytes / below, c.elements / below, level.latency_s,
                        hier_flow_bytes_per_s(level), c.reduce_s_per_elem, r.steps, r.passes, r.reduce);
  }
  return total;
}

std::vector<LevelPrediction> predict_levels(const LevelTopology& t, const LevelShape& shape) {
  std::vector<LevelPrediction> out;
  const double s = shape.bytes_per_elem;
  const LevelCollective contracting{shape.contracting, shape.B * shape.F * s, shape.B * shape.F,
                                    shape.reduce_s_per_elem};
  const LevelCollective fsdp{Collective::AllGather, shape.D * shape.F * s, shape.D * shape.F, 0};
  int crossed = 0;
  for (int top = 0; top < static_cast<int>(t.levels.size()); ++top) {
    const TopologyLevel& level = t.levels[static_cast<std::size_t>(top)];
    if (level.group_size > 1) ++crossed;
    LevelPrediction p;
    p.level = top;
    p.ranks = t.ranks_up_to(top);
    p.ring_link = ring_link(t, top);
    p.hier_flow_bytes_per_s = hier_flow_bytes_per_s(level);
    p.t_ring_contracting = t_comm_ring(t, top, contracting);
    p.t_hier_contracting = t_comm_hier(t, top, contracting);
    p.t_ring_fsdp = t_comm_ring(t, top, fsdp);
    p.t_hier_fsdp = t_comm_hier(t, top, fsdp);
    const double n = static_cast<double>(p.ranks);
    const double C = shape.flops_per_s;
    p.d_star_ring = n * C * p.t_ring_contracting / (2 * shape.B * shape.F);
    p.d_star_hier = n * C * p.t_hier_contracting / (2 * shape.B * shape.F);
    p.b_star_per_rank_ring = C * p.t_ring_fsdp / (2 * shape.D * shape.F);
    p.b_star_per_rank_hier = C * p.t_hier_fsdp / (2 * shape.D * shape.F);
    const auto faster = [crossed](double ring, double hier) -> std::string {
      if (crossed < 2) return "same";
      return hier < ring ? "hier" : "ring";
    };
    p.faster_contracting = faster(p.t_ring_contracting, p.t_hier_contracting);
    p.faster_fsdp = faster(p.t_ring_fsdp, p.t_hier_fsdp);
    out.push_back(std::move(p));
  }
  return out;
}

LevelTopology two_level_topology(const TwoLevelShape& shape, const TwoLevelCeilings& c) {
  LevelTopology t;
  t.name = "two-level";
  t.origin = "model/two_level.h";
  const double R = std::max(c.ranks_per_inter_link, 1);
  t.levels.push_back({"node", shape.ranks_per_node, c.intra.bytes_per_s, c.intra.latency_s, 1.0, "", true, true});
  t.levels.push_back({"nodes", shape.nodes, c.inter.bytes_per_s, c.inter.latency_s, 1.0 / R, "", true, true});
  return t;
}

LevelTopology parse_topology(std::string_view toml_text, const std::string& origin) {
  // TOML as model/hardware.cpp reads presets (cli/toml_text.h is the same
  // for the command line's files, in a folder this one may not include).
  toml::table root;
  try {
    root = toml::parse(toml_text, origin);
  } catch (const toml::parse_error& e) {
    throw_usage("{}:{}:{}: malformed TOML: {}", origin, e.source().begin.line, e.source().begin.column,
                e.description());
  }
  reject_unknown_keys(root, {"name", "description", "hardware", "levels"}, "the topology", origin);
  LevelTopology t;
  t.origin = origin;
  t.name = string_at(root, "name", "the topology", origin);
  if (t.name.empty()) throw_usage("{}: the topology has no 'name'", origin);
  t.description = string_at(root, "description", "the topology", origin);
  t.hardware = string_at(root, "hardware", "the topology", origin);
  const toml::node* levels = root.get("levels");
  const toml::array* list = levels ? levels->as_array() : nullptr;
  if (!list || list->empty())
    throw_usage("{}: the topology needs its levels, innermost first: [[levels]] with name, group_size and link (or "
                "bytes_per_s and latency_s)",
                origin);
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto* table = (*list)[i].as_table();
    const std::string context = fmt::format("levels[{}]", i);
    if (!table) throw_usage("{}: each [[levels]] must be a table", origin);
    reject_unknown_keys(*table, {"name", "group_size", "link", "bytes_per_s", "latency_s", "oversubscription"},
                        "[[levels]]", origin);
    TopologyLevel l;
    l.link = string_at(*table, "link", context, origin);
    l.name = string_at(*table, "name", context, origin);
    if (l.name.empty()) l.name = l.link.empty() ? fmt::format("level {}", i) : l.link;
    const auto group = number_at(*table, "group_size", context, origin);
    if (!group) throw_usage("{}: {} ({}) has no group_size", origin, context, l.name);
    if (!(*group >= 1 && *group == std::floor(*group) && *group <= static_cast<double>(kMaxRanks)))
      throw_usage("{}: {}.group_size must be a whole number of 1 or more (got {})", origin, context, *group);
    l.group_size = static_cast<int>(*group);
    const auto W = number_at(*table, "bytes_per_s", context, origin);
    const auto a = number_at(*table, "latency_s", context, origin);
    l.bytes_per_s_given = W.has_value();
    l.latency_s_given = a.has_value();
    l.bytes_per_s = W.value_or(0);
    l.latency_s = a.value_or(0);
    if (l.link.empty() && !(W && a))
      throw_usage("{}: {} ({}) needs a link of the hardware preset, or bytes_per_s and latency_s", origin, context,
                  l.name);
    l.oversubscription = number_at(*table, "oversubscription", context, origin).value_or(1.0);
    check_level_values(l, context, origin);
    t.levels.push_back(std::move(l));
  }
  check_ranks(t);
  return t;
}

std::vector<std::string> builtin_topology_names() {
  std::vector<std::string> names;
  for (const auto& p : kBuiltinTopologies) names.emplace_back(p.name);
  std::sort(names.begin(), names.end());
  return names;
}

LevelTopology load_topology(const std::string& name_or_path) {
  if (name_or_path.empty()) throw_usage("--topology: empty name");
  namespace fs = std::filesystem;
  std::error_code ec;
  if (looks_like_path(name_or_path) || fs::is_regular_file(name_or_path, ec)) {
    if (!fs::is_regular_file(name_or_path, ec))
      throw_usage("--topology: no topology file '{}' (built-in topologies: {})", name_or_path,
                  join_names(builtin_topology_names()));
    return parse_topology(read_text(name_or_path, "--topology"), name_or_path);
  }
#ifdef SHARDROOF_SOURCE_TOPOLOGY_DIR
  // The source tree's copy (named as in the repository), when it still exists.
  const fs::path source_file = fs::path(SHARDROOF_SOURCE_TOPOLOGY_DIR) / (name_or_path + ".toml");
  if (fs::is_regular_file(source_file, ec))
    return parse_topology(read_text(source_file, "--topology"), "configs/topology/" + name_or_path + ".toml");
#endif
  for (const auto& p : kBuiltinTopologies)
    if (p.name == name_or_path) return parse_topology(p.text, "built-in:" + name_or_path);
  throw_usage("--topology: unknown topology '{}' (built-in topologies: {}; or give a TOML file)", name_or_path,
              join_names(builtin_topology_names()));
}

void resolve_links(LevelTopology& t, const HardwarePreset* hw) {
  for (std::size_t i = 0; i < t.levels.size(); ++i) {
    TopologyLevel& l = t.levels[i];
    if (l.link.empty()) continue;
    if (!hw)
      throw_usage("topology {}: level {} ({}) names the link '{}' but there is no hardware preset (give --hw, or "
                  "'hardware' in the topology)",
                  t.name, i, l.name, l.link);
    const LinkPreset* found = nullptr;
    try {
      found = &hw->link(l.link);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("topology {}: level {} ({}): {}", t.name, i, l.name, e.what()));
    }
    const LinkPreset& link = *found;
    l.link = link.name;
    if (!l.bytes_per_s_given) l.bytes_per_s = link.bytes_per_s;
    if (!l.latency_s_given) l.latency_s = link.latency_s;
  }
  for (std::size_t i = 0; i < t.levels.size(); ++i)
    if (!(t.levels[i].bytes_per_s > 0))
      throw_usage("topology {}: level {} ({}) has no bandwidth", t.name, i, t.levels[i].name);
}

}  // namespace shardroof::model
