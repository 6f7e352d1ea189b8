// The simulated build: smpirun loads the program into its own process, once
// per simulated rank, so the program never starts itself again; its
// hosts' compute is the platform's, not this BLAS's.
#include "hardware/blas_choice.h"

namespace shardroof::hw {

void choose_blas_kernel(int, char**) {}

}  // namespace shardroof::hw
