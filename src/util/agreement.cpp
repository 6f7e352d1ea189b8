#include "util/agreement.h"

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
    for (int r : failed) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
    first += " (on rank" + std::string(failed.size() > 1 ? "s " : " ") + ranks + ")";
  }
  Error agreed(static_cast<ExitCode>(first_code), first);
  agreed.mark_agreed();
  throw agreed;
}

}  // namespace shardroof
