#include "cpu/host_backend.h"

#include "cpu/cpu_backend.h"

namespace shardroof {

std::unique_ptr<ComputeBackend> make_host_backend(int threads) { return make_cpu_backend(threads); }

}  // namespace shardroof
