// RAII for the MPI library and a view of the world communicator that the
// commands use for agreement (verdicts, maxima) outside the collectives.
#pragma once

#include <mpi.h>

#include <span>
#include <string>
#include <vector>

namespace shardroof {

class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm world() const { return MPI_COMM_WORLD; }
  bool is_root() const { return rank_ == 0; }
  int thread_level() const { return thread_level_; }

 private:
  int rank_ = 0;
  int size_ = 1;
  int thread_level_ = MPI_THREAD_SINGLE;
};

// Collective helpers on a communicator (every rank must call them).
bool all_true(MPI_Comm comm, bool mine);
double max_over_ranks(MPI_Comm comm, double mine);
long long sum_over_ranks(MPI_Comm comm, long long mine);
double sum_over_ranks(MPI_Comm comm, double mine);
double min_over_ranks(MPI_Comm comm, double mine);
// Rank 0's values, on every rank (the same number of them on every rank).
void broadcast_from_root(MPI_Comm comm, std::span<long long> values);
void barrier(MPI_Comm comm);
// Gathers a string from every rank (rank order) on every rank.
std::vector<std::string> all_gather_strings(MPI_Comm comm, const std::string& mine);
// Rank 0's string, on every rank.
std::string broadcast_string(MPI_Comm comm, const std::string& mine);

// The MPI library's version as it names itself, up to the first comma or
// line break ("Open MPI v4.1.4").
std::string mpi_library_version();

}  // namespace shardroof
