// What the hardware presets (model/hardware.cpp) and the topologies
// (model/topology.cpp) share in reading their TOML files: where a value
// sits, the keys a table may hold, whether a name is a path, reading the
// file. Errors are UsageErrors naming the file (and line) and the flag.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

namespace shardroof::model::toml_fields {

// "origin:line" where the parser knows the line, else origin.
std::string where(const toml::node& node, const std::string& origin);

// Throws naming the first key of `table` not in `known`, and the known ones.
void reject_unknown_keys(const toml::table& table, const std::vector<std::string_view>& known,
                         const std::string& context, const std::string& origin);

// A name with a '/' or ending in ".toml" is a file, not a preset's name.
bool looks_like_path(const std::string& name);

// The whole file; `flag` ("--hw") names what asked for it in the error.
std::string read_text(const std::filesystem::path& path, std::string_view flag);

// "a, b, c", or "(none)".
std::string join_names(const std::vector<std::string>& names);

}  // namespace shardroof::model::toml_fields
