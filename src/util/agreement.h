// Agreement on errors before any collective: every rank runs the same check,
// the ranks exchange their verdicts, and if any rank failed, every rank
// throws the same Error (the lowest failing rank's message, naming the ranks
// that failed when not all did). No rank is left waiting in a collective
// for a rank that gave up.
#pragma once

#include <mpi.h>

#include <functional>

namespace shardroof {

void run_agreed(MPI_Comm comm, const std::function<void()>& check);

}  // namespace shardroof
