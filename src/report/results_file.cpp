#include "report/results_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "util/error.h"

namespace shardroof {

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw RuntimeError(fmt::format("cannot write '{}': {}", tmp, std::strerror(errno)));
    out << text;
    out.flush();
    if (!out) throw RuntimeError(fmt::format("cannot write '{}': {}", tmp, std::strerror(errno)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw RuntimeError(fmt::format("cannot replace '{}': {}", path, why));
  }
}

void check_writable(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  if (p.filename().empty()) throw_usage("{}: '{}' is a directory, not a file name", flag, path);
  std::error_code ec;
  if (fs::is_directory(p, ec)) throw_usage("{}: '{}' is a directory", flag, path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) throw_usage("{}: directory '{}' does not exist", flag, dir.string());
  if (::access(dir.c_str(), W_OK) != 0) throw_usage("{}: directory '{}' is not writable", flag, dir.string());
  if (fs::exists(p, ec) && ::access(p.c_str(), W_OK) != 0) throw_usage("{}: '{}' is not writable", flag, path);
}

void write_json_atomically(const std::string& path, const nlohmann::json& doc) {
  write_file_atomically(path, doc.dump(2) + "\n");
}

void check_readable(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty()) throw_usage("{}: empty file name", flag);
  if (!fs::exists(path, ec)) throw_usage("{}: '{}' does not exist", flag, path);
  if (fs::is_directory(path, ec)) throw_usage("{}: '{}' is a directory, not a file", flag, path);
  if (::access(path.c_str(), R_OK) != 0) throw_usage("{}: '{}' is not readable: {}", flag, path, std::strerror(errno));
}

std::string choose_output_path(const std::string& path, bool force) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // A directory is not replaced by a fresh name: check_writable reports it.
  if (force || !fs::exists(path, ec) || fs::is_directory(path, ec)) return path;
  const fs::path p(path);
  const std::string stem = p.stem().string();
  const std::string ext = p.extension().string();
  for (int i = 1;; ++i) {
    fs::path candidate = p.parent_path() / (stem + "-" + std::to_string(i) + ext);
    if (!fs::exists(candidate, ec)) return candidate.string();
  }
}

}  // namespace shardroof
