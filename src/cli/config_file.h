// --config FILE: a TOML file whose keys are the long names of a command's
// flags (`B = 1024`, `D = "64:4096:x2"` or `D = [64, 128]`,
// `datatype = "float"`). Keys may sit at the top level or in a table named
// after the command ([sweep]). The file is turned into flag arguments that
// are placed before the user's own flags, so flags on the command line
// override the file.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace shardroof {

// The long names of a subcommand's flags (every spelling of each, e.g.
// warmup and warmup_iters): the keys a config file may use.
std::vector<std::string> config_keys(const CLI::App& command);

// `known_keys`: the command's long flag names (without dashes). Throws
// UsageError for an unreadable or malformed file (with its line and column)
// and for unknown keys (naming the closest known key).
std::vector<std::string> config_file_to_args(const std::string& path, const std::string& command,
                                             const std::vector<std::string>& known_keys);

// The same for TOML text already in memory; `source` names it in messages
// (the file name). Used by config_file_to_args and by the fuzzer.
std::vector<std::string> config_text_to_args(const std::string& text, const std::string& source,
                                             const std::string& command,
                                             const std::vector<std::string>& known_keys);

// Makes the keys of TOML `text` (a built-in config, named `source` in
// messages) the defaults of `app`'s flags of the same long names, shown by
// --help; an array becomes a comma-separated list, a boolean 1 or 0. A key
// that names no flag, or a value of another type, is an error of the build.
void apply_config_defaults(CLI::App& app, std::string_view text, std::string_view source);

// Edit distance, for "did you mean" suggestions.
std::size_t edit_distance(const std::string& a, const std::string& b);
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace shardroof
