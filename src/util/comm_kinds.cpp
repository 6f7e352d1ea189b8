#include "util/comm_kinds.h"

namespace shardroof {

std::string_view to_string(TransportKind t) { return t == TransportKind::Mpi ? "mpi" : "nccl"; }

std::optional<TransportKind> parse_transport(std::string_view name) {
  if (name == "mpi") return TransportKind::Mpi;
  if (name == "nccl") return TransportKind::Nccl;
  return std::nullopt;
}

std::string_view to_string(Backend b) { return b == Backend::Cpu ? "cpu" : "cuda"; }

std::optional<Backend> parse_backend(std::string_view name) {
  if (name == "cpu") return Backend::Cpu;
  if (name == "cuda") return Backend::Cuda;
  return std::nullopt;
}

}  // namespace shardroof
