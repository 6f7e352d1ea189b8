#include "commands/output_path.h"

#include <fmt/format.h>

#include "report/results_file.h"
#include "util/agreement.h"
#include "util/mpi_session.h"

namespace shardroof {

std::string agree_output_path(MPI_Comm comm, const std::string& path, bool force, const std::string& flag,
                              std::ostream& note) {
  if (path.empty()) return path;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string chosen;
  run_agreed(comm, [&] {
    if (rank != 0) return;
    chosen = choose_output_path(path, force);
    check_writable(chosen, flag);
  });
  chosen = broadcast_string(comm, chosen);
  // One write: the launcher forwards stderr and stdout separately and may
  // split a line written in pieces.
  if (rank == 0 && chosen != path)
    note << fmt::format("{}: '{}' exists; writing '{}' instead (--force overwrites)\n", flag, path, chosen)
         << std::flush;
  return chosen;
}

}  // namespace shardroof
