#include "measure/native_library.h"

#include <cstdlib>
#include <string>

namespace shardroof {

model::NativeLibrary read_native_library(std::string_view transport) {
  if (transport != "nccl") return read_mpi_library();
  model::NativeLibrary lib;
  lib.kind = model::NativeLibrary::Kind::Nccl;
  lib.name = "NCCL";
  // NCCL reads these once, from the environment, when it starts.
  if (const char* algo = std::getenv("NCCL_ALGO")) lib.nccl_algo = algo;
  if (const char* proto = std::getenv("NCCL_PROTO")) lib.nccl_proto = proto;
  return lib;
}

}  // namespace shardroof
