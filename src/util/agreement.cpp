#include "util/agreement.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "util/error.h"
#include "util/mpi_session.h"

namespace shardroof {

void run_agreed(MPI_Comm comm, const std::function<void()>& check) {
  std::string message;
  int code = 0;
  try {
    check();
  } catch (const Error& e) {
    message = e.what();
    code = static_cast<int>(e.code());
  } catch (const std::exception& e) {
    message = e.what();
    code = static_cast<int>(ExitCode::Runtime);
  }
  const auto messages = all_gather_strings(comm, std::to_string(code) + ":" + message);
  std::vector<int> failed;
  std::string first;
  int first_code = 0;
  for (std::size_t r = 0; r < messages.size(); ++r) {
    const auto colon = messages[r].find(':');
    const int c = std::stoi(messages[r].substr(0, colon));
    if (c == 0) continue;
    if (failed.empty()) {
      first = messages[r].substr(colon + 1);
      first_code = c;
    }
    failed.push_back(static_cast<int>(r));
  }
  if (failed.empty()) return;
  if (failed.size() != messages.size()) {
    std::string ranks;
    for (int r : failed) {
      if (!ranks.empty()) ranks += ',';
      ranks += std::to_string(r);
    }
    first += " (on rank" + std::string(failed.size() > 1 ? "s " : " ") + ranks + ")";
  }
  Error agreed(static_cast<ExitCode>(first_code), first);
  agreed.mark_agreed();
  throw agreed;
}

std::uint64_t settings_hash(const std::vector<std::string>& parts) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a's 64-bit offset basis
  const auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ULL;
  };
  for (const auto& part : parts) {
    // The length first, so ("ab","c") and ("a","bc") differ.
    for (int i = 0; i < 8; ++i) mix(static_cast<unsigned char>((part.size() >> (8 * i)) & 0xff));
    for (char c : part) mix(static_cast<unsigned char>(c));
  }
  return h;
}

void require_same_settings(MPI_Comm comm, const std::vector<std::string>& parts, std::string_view what) {
  const std::string mine = fmt::format("{:016x}", settings_hash(parts));
  const auto all = all_gather_strings(comm, mine);
  std::vector<int> differ;
  for (std::size_t r = 1; r < all.size(); ++r)
    if (all[r] != all[0]) differ.push_back(static_cast<int>(r));
  if (differ.empty()) return;
  std::string ranks;
  for (std::size_t i = 0; i < differ.size() && i < 16; ++i) {
    if (!ranks.empty()) ranks += ',';
    ranks += std::to_string(differ[i]);
  }
  if (differ.size() > 16) ranks += fmt::format(" and {} more", differ.size() - 16);
  Error agreed(ExitCode::Usage,
               fmt::format("settings differ between ranks: the {} of rank{} {} differ from rank 0's "
                           "(hash {} vs {}); start every rank with the same flags and config file",
                           what, differ.size() > 1 ? "s" : "", ranks, all[static_cast<std::size_t>(differ[0])], all[0]));
  agreed.mark_agreed();
  throw agreed;
}

}  // namespace shardroof
