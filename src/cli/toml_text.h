// TOML text parsed with toml++ (exceptions on), for every file the program
// reads as TOML: a malformed text is a usage error that says where.
#pragma once

#include <string>
#include <string_view>

#ifndef TOML_EXCEPTIONS
#define TOML_EXCEPTIONS 1
#endif
#include <toml++/toml.h>

#include "util/error.h"

namespace shardroof {

// `source` names the text in messages (the file name): "source:line:column:
// malformed TOML: ...".
inline toml::table parse_toml_text(std::string_view text, const std::string& source) {
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source();
    throw_usage("{}:{}:{}: malformed TOML: {}", source, where.begin.line, where.begin.column, e.description());
  }
}

}  // namespace shardroof
