#include "model/toml_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "util/error.h"

namespace shardroof::model::toml_fields {

std::string where(const toml::node& node, const std::string& origin) {
  const auto& src = node.source();
  if (src.begin.line == 0) return origin;
  return fmt::format("{}:{}", origin, src.begin.line);
}

void reject_unknown_keys(const toml::table& table, const std::vector<std::string_view>& known,
                         const std::string& context, const std::string& origin) {
  for (const auto& [key, node] : table) {
    if (std::find(known.begin(), known.end(), key.str()) == known.end()) {
      std::string list;
      for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      throw_usage("{}: unknown key '{}' in {} (known: {})", where(node, origin), key.str(), context, list);
    }
  }
}

bool looks_like_path(const std::string& name) {
  return name.find('/') != std::string::npos || (name.size() > 5 && name.ends_with(".toml"));
}

std::string read_text(const std::filesystem::path& path, std::string_view flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_usage("{}: cannot read '{}'", flag, path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none)" : out;
}

}  // namespace shardroof::model::toml_fields
