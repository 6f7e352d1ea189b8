#include "util/mpi_session.h"

#include "collectives/mpi_transport.h"

namespace shardroof {

MpiSession::MpiSession(int* argc, char*** argv) {
  SHARDROOF_MPI_CHECK(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &thread_level_));
  // Library errors come back as return codes and are turned into exceptions
  // with file, line and rank, instead of aborting inside the library.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

bool all_true(MPI_Comm comm, bool mine) {
  int v = mine ? 1 : 0;
  int all = 0;
  SHARDROOF_MPI_CHECK(MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MIN, comm));
  return all == 1;
}

double max_over_ranks(MPI_Comm comm, double mine) {
  double out = 0;
  SHARDROOF_MPI_CHECK(MPI_Allreduce(&mine, &out, 1, MPI_DOUBLE, MPI_MAX, comm));
  return out;
}

double sum_over_ranks(MPI_Comm comm, double mine) {
  double out = 0;
  SHARDROOF_MPI_CHECK(MPI_Allreduce(&mine, &out, 1, MPI_DOUBLE, MPI_SUM, comm));
  return out;
}

double min_over_ranks(MPI_Comm comm, double mine) {
  double out = 0;
  SHARDROOF_MPI_CHECK(MPI_Allreduce(&mine, &out, 1, MPI_DOUBLE, MPI_MIN, comm));
  return out;
}

void broadcast_from_root(MPI_Comm comm, std::span<long long> values) {
  SHARDROOF_MPI_CHECK(MPI_Bcast(values.data(), static_cast<int>(values.size()), MPI_LONG_LONG, 0, comm));
}

long long sum_over_ranks(MPI_Comm comm, long long mine) {
  long long out = 0;
  SHARDROOF_MPI_CHECK(MPI_Allreduce(&mine, &out, 1, MPI_LONG_LONG, MPI_SUM, comm));
  return out;
}

void barrier(MPI_Comm comm) { SHARDROOF_MPI_CHECK(MPI_Barrier(comm)); }

std::vector<std::string> all_gather_strings(MPI_Comm comm, const std::string& mine) {
  int n = 0;
  MPI_Comm_size(comm, &n);
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(n)), displs(static_cast<std::size_t>(n));
  SHARDROOF_MPI_CHECK(MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm));
  int total = 0;
  for (int i = 0; i < n; ++i) {
    displs[static_cast<std::size_t>(i)] = total;
    total += lens[static_cast<std::size_t>(i)];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  SHARDROOF_MPI_CHECK(MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(),
                                     displs.data(), MPI_CHAR, comm));
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i)
    out.push_back(all.substr(static_cast<std::size_t>(displs[static_cast<std::size_t>(i)]),
                             static_cast<std::size_t>(lens[static_cast<std::size_t>(i)])));
  return out;
}

std::string broadcast_string(MPI_Comm comm, const std::string& mine) {
  long long len = static_cast<long long>(mine.size());
  SHARDROOF_MPI_CHECK(MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, comm));
  std::string out = mine;
  out.resize(static_cast<std::size_t>(len));
  SHARDROOF_MPI_CHECK(MPI_Bcast(out.data(), static_cast<int>(len), MPI_CHAR, 0, comm));
  return out;
}

std::string mpi_library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(buf, &len);
  std::string s(buf, static_cast<std::size_t>(len > 0 ? len : 0));
  const auto nl = s.find_first_of("\r\n,");
  return nl == std::string::npos ? s : s.substr(0, nl);
}

}  // namespace shardroof
