// Is there memory for what a run is about to allocate? Checked before any
// buffer is made, so an absurd size range ends with a usage error that says
// how much is needed, instead of an out-of-memory kill in the middle of a run.
//
// Usage (in a command's run()):
//
//   const NodeMemory node = node_memory(ctx.mpi.world());   // collective
//   run_agreed(ctx.mpi.world(), [&] {
//     ...
//     require_memory(node, bytes_per_rank, "--maxbytes 64G");
//   });
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shardroof {

struct NodeMemory {
  std::optional<std::uint64_t> available_bytes;  // MemAvailable of this node, if known
  int ranks_on_node = 1;                         // ranks of the communicator sharing this node
};

// MemAvailable from a meminfo file (Linux /proc/meminfo format), in bytes.
std::optional<std::uint64_t> mem_available_bytes(const std::string& meminfo_path = "/proc/meminfo");

// Collective on `comm`: this node's available memory and how many ranks of
// `comm` share the node (MPI_Comm_split_type, shared memory).
NodeMemory node_memory(MPI_Comm comm);

// The share of MemAvailable a run may plan to use; the rest is left for
// the MPI library, the OS and the page cache.
inline constexpr double kUsableMemoryFraction = 0.9;

// What one rank may plan to use: kUsableMemoryFraction of the available
// memory, shared by the ranks on the node; none when it is unknown.
std::optional<std::uint64_t> usable_bytes_per_rank(const NodeMemory& node);

// Throws UsageError when `bytes_per_rank` times the ranks on this node does
// not fit in kUsableMemoryFraction of the available memory. `what` names the
// setting responsible (e.g. "--maxbytes 64G"). Does nothing when the
// available memory is unknown.
void require_memory(const NodeMemory& node, std::uint64_t bytes_per_rank, std::string_view what);

// Saturating arithmetic for memory estimates of absurd sizes.
std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b);
std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b);

}  // namespace shardroof
