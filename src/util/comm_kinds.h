// What a benchmark's communication stack runs on, as names: which transport
// carries the collectives and which compute backend holds the buffers.
// Plain enums that plans, records and reporters carry; measure/comm_setup.h
// builds the stack they name. The implementation of a collective is
// coll::Algorithm (collectives/traits.h), from the command line on.
#pragma once

#include <optional>
#include <string_view>

namespace shardroof {

enum class TransportKind { Mpi, Nccl };
std::string_view to_string(TransportKind t);
std::optional<TransportKind> parse_transport(std::string_view name);

enum class Backend { Cpu, Cuda };
std::string_view to_string(Backend b);
std::optional<Backend> parse_backend(std::string_view name);

}  // namespace shardroof
