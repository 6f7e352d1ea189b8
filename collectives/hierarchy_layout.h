// Ranks grouped into L nested levels, innermost first: level 0 the ranks of
// a node, level 1 the nodes of a group (the hosts under one switch), level 2
// the groups of a larger group, ..., level L-1 the outermost groups, which
// together hold every rank. g_l is the number of level-(l-1) units in a
// level-l unit (g_0: ranks per node), so N = g_0 g_1 ... g_{L-1}.
//
// Each rank has one coordinate per level: c_0 its place in its node, c_l
// (l >= 1) the place of its level-(l-1) unit among those of its level-l
// unit, units numbered in the order of their lowest rank. Its ring at level
// l (peers) is the g_l ranks that differ from it in c_l alone, in the order
// of c_l: for two levels, the node's ranks (level 0) and the ranks of its
// local index across the nodes (level 1), as NodeLayout has them.
//
// Every rank derives the same layout from the same labels whatever the
// labels are. A level of size 1 is allowed (its ring is the rank alone).
#pragma once

#include <string>
#include <vector>

namespace shardroof::coll {

class HierarchyLayout {
 public:
  // `node_of_rank`: NodeLayout's labels (level 0). `group_of_rank[i]`: a
  // label of each rank's group at level i + 1, innermost first; the
  // outermost level, whose one unit is every rank, is implicit, so there
  // are 2 + group_of_rank.size() levels. Throws InvalidArgument when a
  // label list has the wrong length, a group splits a unit of the level
  // below (a node across two groups), or the units of a level hold
  // different numbers of units of the level below.
  explicit HierarchyLayout(const std::vector<int>& node_of_rank,
                           const std::vector<std::vector<int>>& group_of_rank = {});

  // Consecutive units of the sizes g_0, g_1, ... (innermost first): rank r
  // has c_0 = r mod g_0, c_1 = (r / g_0) mod g_1, ... Throws InvalidArgument
  // unless every size is at least 1 and they multiply to `ranks`.
  static HierarchyLayout consecutive(int ranks, const std::vector<int>& sizes);

  int ranks() const { return static_cast<int>(coordinates_.size()); }
  int levels() const { return static_cast<int>(sizes_.size()); }
  // g_l, innermost first.
  int size(int level) const { return sizes_[static_cast<std::size_t>(level)]; }
  const std::vector<int>& sizes() const { return sizes_; }
  // c_l of `rank`.
  int coordinate(int rank, int level) const {
    return coordinates_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(level)];
  }
  // The ranks that differ from `rank` in c_level alone, in the order of
  // c_level (`rank` among them, at its own coordinate).
  std::vector<int> peers(int rank, int level) const;
  // The rank at coordinates c_0 + g_0 (c_1 + g_1 (c_2 + ...)): `index`
  // unpacked with the sizes, innermost fastest.
  int rank_at_index(int index) const { return rank_of_index_[static_cast<std::size_t>(index)]; }
  // The inverse: c_0 + g_0 (c_1 + g_1 (c_2 + ...)) of `rank`.
  int index_of(int rank) const;
  // Every rank of `rank`'s unit at `level` (its g_0 ... g_level ranks), in
  // index order: level 0 its node, the outermost level every rank.
  std::vector<int> unit_members(int rank, int level) const;
  // Whether rank r sits at index r (rank = c_0 + g_0 (c_1 + ...)): every
  // unit of every level consecutive ranks, in rank order.
  bool consecutive_ranks() const;
  // How many levels have more than one unit in a unit (rings that move data).
  int working_levels() const;

  // "2 x 2 x 2 (ranks per node x nodes per group x groups)" for messages.
  std::string describe() const;

 private:
  HierarchyLayout() = default;
  std::vector<int> sizes_;
  std::vector<std::vector<int>> coordinates_;  // [rank][level]
  std::vector<int> rank_of_index_;
};

}  // namespace shardroof::coll
