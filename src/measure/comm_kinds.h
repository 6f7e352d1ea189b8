// What a benchmark's communication stack is made of, as names: which
// implementation of a collective (ours or the library's), which transport,
// which compute backend. Plain enums that plans, records and reporters
// carry; measure/comm_setup.h builds the stack they name.
#pragma once

#include <optional>
#include <string_view>

namespace shardroof {

// Ours: auto (chosen by a tuning table), ring, pairwise, direct, hier
// (two levels over the node grouping; collectives/algorithms.h); native: the
// library's own collective.
enum class Impl { Auto, Ring, Pairwise, Direct, Hier, Native };
std::string_view to_string(Impl impl);
std::optional<Impl> parse_impl(std::string_view name);

enum class TransportKind { Mpi, Nccl };
std::string_view to_string(TransportKind t);
std::optional<TransportKind> parse_transport(std::string_view name);

enum class Backend { Cpu, Cuda };
std::string_view to_string(Backend b);
std::optional<Backend> parse_backend(std::string_view name);

}  // namespace shardroof
