#include "link/pairs.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "collectives/mpi_transport.h"
#include "util/mpi_session.h"
#include "util/node.h"

namespace shardroof::link {

std::vector<RankPair> all_pairs(int ranks) {
  std::vector<RankPair> out;
  for (int i = 0; i < ranks; ++i)
    for (int j = i + 1; j < ranks; ++j) out.push_back({i, j});
  return out;
}

std::vector<RankPair> sample_pairs(int ranks, std::uint64_t count, std::uint64_t seed) {
  const std::uint64_t n = ranks > 1 ? static_cast<std::uint64_t>(ranks) : 0;
  const std::uint64_t total = n * (n > 0 ? n - 1 : 0) / 2;
  if (count >= total) return all_pairs(ranks);
  // Rejection sampling of distinct pairs: cheap because count < total, and
  // it never builds the full list (N can be in the thousands). The draws
  // use only mt19937_64's specified output, so every rank agrees.
  std::mt19937_64 gen(seed);
  std::set<std::pair<int, int>> chosen;
  while (chosen.size() < count) {
    const int a = static_cast<int>(gen() % n);
    const int b = static_cast<int>(gen() % n);
    if (a == b) continue;
    chosen.insert({std::min(a, b), std::max(a, b)});
  }
  std::vector<RankPair> out;
  for (const auto& [a, b] : chosen) out.push_back({a, b});
  return out;
}

Topology discover_topology(MPI_Comm comm) {
  int rank = 0;
  int size = 1;
  SHARDROOF_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  SHARDROOF_MPI_CHECK(MPI_Comm_size(comm, &size));
  // A node is named by the lowest world rank on it.
  int leader = rank;
  {
    const NodeComm node(comm);
    SHARDROOF_MPI_CHECK(MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, node.get()));
  }
  std::vector<int> leaders(static_cast<std::size_t>(size));
  SHARDROOF_MPI_CHECK(MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm));

  Topology topo;
  std::map<int, int> index_of_leader;
  for (int l : leaders) {
    if (!index_of_leader.count(l)) {
      const int next = static_cast<int>(index_of_leader.size());
      index_of_leader[l] = next;
    }
  }
  for (int l : leaders) topo.node_of_rank.push_back(index_of_leader[l]);
  topo.nodes = static_cast<int>(index_of_leader.size());

  topo.host_of_rank = all_gather_strings(comm, host_name());
  return topo;
}

}  // namespace shardroof::link
