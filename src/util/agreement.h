// Agreement on errors before any collective: every rank runs the same check,
// the ranks exchange their verdicts, and if any rank failed, every rank
// throws the same Error (the lowest failing rank's message, naming the ranks
// that failed when not all did). No rank is left waiting in a collective
// for a rank that gave up.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace shardroof {

void run_agreed(MPI_Comm comm, const std::function<void()>& check);

// A hash of settings that is the same in every process of every build
// (FNV-1a over length-prefixed strings), unlike std::hash.
std::uint64_t settings_hash(const std::vector<std::string>& parts);

// Collective: every rank hashes its settings (e.g. the expanded command
// line, config file included) and compares with the others. If any rank
// differs, every rank throws the same agreed UsageError naming the ranks
// that differ from rank 0, so ranks started with different flags or config
// files never run different plans against each other. `what` says what was
// compared ("command line and config file").
void require_same_settings(MPI_Comm comm, const std::vector<std::string>& parts, std::string_view what);

}  // namespace shardroof
