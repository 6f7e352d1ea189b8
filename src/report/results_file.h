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

}  // namespace shardroof
