// Output files that survive a run that dies: every write replaces the whole
// file atomically (write a temporary file next to it, then rename), so a
// reader always sees the last complete version. Only rank 0 writes.
#pragma once

#include <nlohmann/json.hpp>
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

}  // namespace shardroof
