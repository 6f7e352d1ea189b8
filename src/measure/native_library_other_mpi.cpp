// An MPI other than Open MPI (or a build without its MPI_T names, or
// SimGrid's SMPI): the library is named, its algorithm choice is not known
// here (measure/native_library.h).
#include <fmt/format.h>

#include "measure/native_library.h"

namespace shardroof {

model::NativeLibrary read_mpi_library() {
  model::NativeLibrary lib;
  lib.kind = model::NativeLibrary::Kind::Other;
  lib.name = mpi_library_version();
  lib.unknown = fmt::format("{}: its algorithm choice is not read by this build", lib.name);
  return lib;
}

}  // namespace shardroof
