// The linked BLAS is OpenBLAS (SHARDROOF_BLAS=OpenBLAS, the default).
#include <cblas.h>

#include "hardware/blas_library.h"

namespace shardroof::hw {

BlasFamily linked_blas_family() { return BlasFamily::OpenBlas; }

bool set_blas_threads(int threads) {
  openblas_set_num_threads(threads);
  return true;
}

namespace detail {

BlasInfo linked_library() {
  BlasInfo info;
  info.family = BlasFamily::OpenBlas;
  info.library = "OpenBLAS";
  info.config = openblas_get_config();
  info.version = openblas_version(info.config);
  info.kernel = openblas_get_corename();
  return info;
}

}  // namespace detail
}  // namespace shardroof::hw
