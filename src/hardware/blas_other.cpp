// The linked BLAS is another CBLAS that CMake's FindBLAS found
// (SHARDROOF_BLAS=<a BLA_VENDOR>): named by the vendor it was configured
// with; its version and kernel are not queried, so it is not judged.
#include <cblas.h>

#include "hardware/blas_library.h"

#ifndef SHARDROOF_BLAS_VENDOR
#error "SHARDROOF_BLAS_VENDOR names the BLA_VENDOR this file is built for (CMakeLists.txt sets it)"
#endif

namespace shardroof::hw {

BlasFamily linked_blas_family() { return BlasFamily::Other; }

// A CBLAS has no standard call for its threads: the library's own variable
// (MKL_NUM_THREADS, OMP_NUM_THREADS, ...) sets them.
bool set_blas_threads(int) { return false; }

namespace detail {

BlasInfo linked_library() {
  BlasInfo info;
  info.family = BlasFamily::Other;
  info.library = SHARDROOF_BLAS_VENDOR;
  info.config = "CBLAS from CMake's FindBLAS, BLA_VENDOR " SHARDROOF_BLAS_VENDOR;
  return info;
}

}  // namespace detail
}  // namespace shardroof::hw
