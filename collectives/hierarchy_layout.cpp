#include "collectives/hierarchy_layout.h"

#include <map>

#include "collectives/error.h"
#include "collectives/node_layout.h"

namespace shardroof::coll {
namespace {

// What a level-`level` unit is called among `levels` levels, for messages:
// "node", "group" (three levels), "level-2 group".
std::string unit_name(int level, int levels) {
  if (level == 0) return "node";
  if (levels == 3) return "group";
  return "level-" + std::to_string(level) + " group";
}

// What a level-`level` unit is made of: "ranks", "nodes", "groups".
std::string members_name(int level, int levels) {
  return level == 0 ? "ranks" : unit_name(level - 1, levels) + "s";
}

std::string joined(const std::vector<int>& values, const std::string& separator) {
  std::string out;
  for (const int v : values) out += (out.empty() ? "" : separator) + std::to_string(v);
  return out;
}

}  // namespace

HierarchyLayout::HierarchyLayout(const std::vector<int>& node_of_rank,
                                 const std::vector<std::vector<int>>& group_of_rank) {
  const NodeLayout nodes(node_of_rank);
  const int n = nodes.ranks();
  const int level_count = 2 + static_cast<int>(group_of_rank.size());
  coordinates_.resize(static_cast<std::size_t>(n));
  // unit[r]: the index of rank r's unit at the level below the one being
  // built, units numbered in the order of their lowest rank.
  std::vector<int> unit(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    coordinates_[static_cast<std::size_t>(r)].push_back(nodes.local_index(r));
    unit[static_cast<std::size_t>(r)] = nodes.node(r);
  }
  sizes_.push_back(nodes.ranks_per_node());
  int units = nodes.nodes();
  for (std::size_t i = 0; i < group_of_rank.size(); ++i) {
    const int level = static_cast<int>(i) + 1;
    const std::vector<int>& labels = group_of_rank[i];
    if (labels.size() != static_cast<std::size_t>(n))
      throw InvalidArgument("the " + unit_name(level, level_count) + " of each of the " + std::to_string(n) +
                            " ranks is needed (got " + std::to_string(labels.size()) + ")");
    // Each unit below takes its ranks' label, which they must share.
    std::vector<int> label_of_unit(static_cast<std::size_t>(units));
    std::vector<int> first_rank(static_cast<std::size_t>(units), -1);
    for (int r = 0; r < n; ++r) {
      const auto u = static_cast<std::size_t>(unit[static_cast<std::size_t>(r)]);
      const int label = labels[static_cast<std::size_t>(r)];
      if (first_rank[u] < 0) {
        first_rank[u] = r;
        label_of_unit[u] = label;
      } else if (label_of_unit[u] != label) {
        throw InvalidArgument("ranks " + std::to_string(first_rank[u]) + " and " + std::to_string(r) + " share a " +
                              unit_name(level - 1, level_count) + " but not a " + unit_name(level, level_count) + "; each " +
                              unit_name(level, level_count) + " must hold whole " + members_name(level, level_count));
      }
    }
    // Units in index order (by lowest rank) make groups numbered by their
    // lowest rank, each listing its units by lowest rank.
    std::map<int, int> group_of_label;
    std::vector<std::vector<int>> members;
    std::vector<int> group_of_unit(static_cast<std::size_t>(units));
    std::vector<int> place_of_unit(static_cast<std::size_t>(units));
    for (int u = 0; u < units; ++u) {
      const auto [it, added] =
          group_of_label.emplace(label_of_unit[static_cast<std::size_t>(u)], static_cast<int>(members.size()));
      if (added) members.emplace_back();
      group_of_unit[static_cast<std::size_t>(u)] = it->second;
      place_of_unit[static_cast<std::size_t>(u)] = static_cast<int>(members[static_cast<std::size_t>(it->second)].size());
      members[static_cast<std::size_t>(it->second)].push_back(u);
    }
    for (const auto& m : members)
      if (m.size() != members.front().size())
        throw InvalidArgument("the " + unit_name(level, level_count) + "s hold different numbers of " +
                              members_name(level, level_count) + " (" + std::to_string(members.front().size()) + " and " +
                              std::to_string(m.size()) + "); a hierarchical collective needs equal " +
                              unit_name(level, level_count) + "s");
    for (int r = 0; r < n; ++r) {
      const auto u = static_cast<std::size_t>(unit[static_cast<std::size_t>(r)]);
      coordinates_[static_cast<std::size_t>(r)].push_back(place_of_unit[u]);
      unit[static_cast<std::size_t>(r)] = group_of_unit[u];
    }
    sizes_.push_back(static_cast<int>(members.front().size()));
    units = static_cast<int>(members.size());
  }
  // The outermost level: its one unit holds every unit below.
  for (int r = 0; r < n; ++r) coordinates_[static_cast<std::size_t>(r)].push_back(unit[static_cast<std::size_t>(r)]);
  sizes_.push_back(units);

  rank_of_index_.assign(static_cast<std::size_t>(n), -1);
  for (int r = 0; r < n; ++r) rank_of_index_[static_cast<std::size_t>(index_of(r))] = r;
}

int HierarchyLayout::index_of(int rank) const {
  int index = 0;
  for (int l = levels() - 1; l >= 0; --l) index = index * size(l) + coordinate(rank, l);
  return index;
}

std::vector<int> HierarchyLayout::unit_members(int rank, int level) const {
  int span = 1;
  for (int l = 0; l <= level; ++l) span *= size(l);
  const int base = index_of(rank) / span * span;
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(span));
  for (int j = 0; j < span; ++j) out.push_back(rank_at_index(base + j));
  return out;
}

HierarchyLayout HierarchyLayout::consecutive(int ranks, const std::vector<int>& sizes) {
  if (sizes.size() < 2) throw InvalidArgument("a hierarchy needs two levels or more");
  long long product = 1;
  for (const int g : sizes) {
    if (g < 1) throw InvalidArgument("level sizes must be at least 1 (" + joined(sizes, " x ") + ")");
    product *= g;
    if (product > ranks) break;
  }
  if (product != ranks)
    throw InvalidArgument("levels of " + joined(sizes, " x ") + " do not make the " + std::to_string(ranks) +
                          " ranks");
  std::vector<int> node_of_rank;
  std::vector<std::vector<int>> group_of_rank(sizes.size() - 2);
  for (int r = 0; r < ranks; ++r) {
    int span = sizes[0];
    node_of_rank.push_back(r / span);
    for (std::size_t i = 0; i < group_of_rank.size(); ++i) {
      span *= sizes[i + 1];
      group_of_rank[i].push_back(r / span);
    }
  }
  return HierarchyLayout(node_of_rank, group_of_rank);
}

std::vector<int> HierarchyLayout::peers(int rank, int level) const {
  int stride = 1;
  for (int l = 0; l < level; ++l) stride *= size(l);
  const int base = index_of(rank) - coordinate(rank, level) * stride;
  std::vector<int> out;
  for (int c = 0; c < size(level); ++c) out.push_back(rank_at_index(base + c * stride));
  return out;
}

bool HierarchyLayout::consecutive_ranks() const {
  for (int r = 0; r < ranks(); ++r)
    if (rank_at_index(r) != r) return false;
  return true;
}

int HierarchyLayout::working_levels() const {
  int working = 0;
  for (const int g : sizes_) working += g > 1 ? 1 : 0;
  return working;
}

std::string HierarchyLayout::describe() const {
  std::string names;
  for (int l = 0; l < levels(); ++l) {
    names += (l == 0 ? "" : " x ") + members_name(l, levels());
    if (l + 1 < levels()) names += " per " + unit_name(l, levels());
  }
  return joined(sizes_, " x ") + " (" + names + ")";
}

}  // namespace shardroof::coll
