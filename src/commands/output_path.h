// The output paths of a run agreed across ranks: rank 0 chooses (the
// no-overwrite policy of report/results_file.h) and every rank learns its
// choice.
#pragma once

#include <mpi.h>

#include <ostream>
#include <string>

namespace shardroof {

// Collective on `comm`, call it outside any other run_agreed: rank 0
// applies choose_output_path and check_writable, the verdict is agreed (a
// UsageError on every rank if the path cannot be written), and every rank
// returns rank 0's choice. When a fresh name was chosen, rank 0 says so on
// `note` ("--json: 'r.json' exists; writing 'r-1.json' (--force overwrites)").
// An empty `path` (no output asked for) is returned unchanged.
std::string agree_output_path(MPI_Comm comm, const std::string& path, bool force, const std::string& flag,
                              std::ostream& note);

}  // namespace shardroof
