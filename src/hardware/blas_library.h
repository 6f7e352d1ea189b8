// What the one file of the linked library (blas_openblas.cpp,
// blas_blis.cpp, blas_other.cpp) tells blas_kernel.cpp's query_blas():
// its own answers, before the environment and this program's choice are
// added. Internal to hardware/.
#pragma once

#include "hardware/blas_kernel.h"

namespace shardroof::hw::detail {

// family, library, version, config, kernel (what the library says of itself).
BlasInfo linked_library();

}  // namespace shardroof::hw::detail
