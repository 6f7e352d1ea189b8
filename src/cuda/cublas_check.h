// Checks cuBLAS calls; failures throw coll::TransportError with file, line,
// rank and cuBLAS's own status name and text (see collectives/cuda/cuda_check.h).
#pragma once

#include <cublas_v2.h>

namespace shardroof {

void check_cublas(cublasStatus_t rc, const char* what, const char* file, int line);

}  // namespace shardroof

#define SHARDROOF_CUBLAS_CHECK(call) ::shardroof::check_cublas((call), #call, __FILE__, __LINE__)
