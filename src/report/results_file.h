// Output files that survive a run that dies: every write replaces the whole
// file atomically (write a temporary file next to it, then rename), so a
// reader always sees the last complete version. Only rank 0 writes.
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace shardroof {

// Writes `text` to `path` through `path.tmp.<pid>` and rename(2).
void write_file_atomically(const std::string& path, const std::string& text);

// Checks that `path` can be created (its directory exists and is writable)
// without leaving a file behind. Throws UsageError otherwise.
void check_writable(const std::string& path, const std::string& flag);

void write_json_atomically(const std::string& path, const nlohmann::json& doc);

// Checks that an input file exists and can be read. Throws UsageError.
void check_readable(const std::string& path, const std::string& flag);

// The no-overwrite policy: `path` itself when it does not exist yet or
// `force` is set; otherwise the first free name "stem-1.ext", "stem-2.ext", ...
// in the same directory. Never throws for a name that exists.
std::string choose_output_path(const std::string& path, bool force);

// Collective on `comm`, call it outside any other run_agreed: rank 0
// applies choose_output_path and check_writable, the verdict is agreed (a
// UsageError on every rank if the path cannot be written), and every rank
// returns rank 0's choice. When a fresh name was chosen, rank 0 says so on
// `note` ("--json: 'r.json' exists; writing 'r-1.json' (--force overwrites)").
// An empty `path` (no output asked for) is returned unchanged.
std::string agree_output_path(MPI_Comm comm, const std::string& path, bool force, const std::string& flag,
                              std::ostream& note);

}  // namespace shardroof
