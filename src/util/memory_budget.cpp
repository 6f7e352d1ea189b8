#include "util/memory_budget.h"

#include <fstream>
#include <limits>
#include <sstream>

#include "util/error.h"
#include "util/node.h"
#include "util/units.h"

namespace shardroof {

std::optional<std::uint64_t> mem_available_bytes(const std::string& meminfo_path) {
  std::ifstream in(meminfo_path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key, unit;
    std::uint64_t value = 0;
    if (!(fields >> key >> value)) continue;
    if (key != "MemAvailable:") continue;
    fields >> unit;
    return unit == "kB" ? saturating_mul(value, 1024) : value;
  }
  return std::nullopt;
}

NodeMemory node_memory(MPI_Comm comm) {
  NodeMemory node;
  node.available_bytes = mem_available_bytes();
  node.ranks_on_node = NodeComm(comm).size();
  return node;
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return std::numeric_limits<std::uint64_t>::max();
  return a * b;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  if (b > std::numeric_limits<std::uint64_t>::max() - a) return std::numeric_limits<std::uint64_t>::max();
  return a + b;
}

std::optional<std::uint64_t> usable_bytes_per_rank(const NodeMemory& node) {
  if (!node.available_bytes) return std::nullopt;
  const auto ranks = static_cast<std::uint64_t>(node.ranks_on_node > 0 ? node.ranks_on_node : 1);
  return static_cast<std::uint64_t>(static_cast<double>(*node.available_bytes) * kUsableMemoryFraction) / ranks;
}

void require_memory(const NodeMemory& node, std::uint64_t bytes_per_rank, std::string_view what) {
  if (!node.available_bytes) return;
  const auto ranks = static_cast<std::uint64_t>(node.ranks_on_node > 0 ? node.ranks_on_node : 1);
  const std::uint64_t needed = saturating_mul(bytes_per_rank, ranks);
  const auto usable = static_cast<std::uint64_t>(static_cast<double>(*node.available_bytes) * kUsableMemoryFraction);
  if (needed <= usable) return;
  throw_usage(
      "{} needs about {} of memory per rank, {} for the {} rank{} on this node, but only {} is available "
      "(MemAvailable {} in /proc/meminfo, of which {:.0f}% may be used); choose a smaller size",
      what, format_bytes(bytes_per_rank), format_bytes(needed), ranks, ranks == 1 ? "" : "s", format_bytes(usable),
      format_bytes(*node.available_bytes), kUsableMemoryFraction * 100);
}

}  // namespace shardroof
