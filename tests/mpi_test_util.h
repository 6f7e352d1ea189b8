// Helpers for tests under MPI: compute a local verdict, combine it across
// ranks, then assert, so an assertion never returns early on one rank while
// the others wait in a collective.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <string>

namespace shardroof::testing {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// True on every rank iff `ok` is true on every rank.
inline bool all_ranks(bool ok) {
  int v = ok ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

// Number of ranks on which `bad` is true.
inline int count_ranks(bool bad) {
  int v = bad ? 1 : 0;
  int n = 0;
  MPI_Allreduce(&v, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return n;
}

}  // namespace shardroof::testing

// EXPECT that `local_ok` holds on every rank; the message names this rank.
#define EXPECT_ALL_RANKS(local_ok, msg)                                                     \
  do {                                                                                      \
    const bool shardroof_ok_ = (local_ok);                                                  \
    const bool shardroof_all_ = ::shardroof::testing::all_ranks(shardroof_ok_);             \
    EXPECT_TRUE(shardroof_all_) << "rank " << ::shardroof::testing::world_rank()            \
                                << (shardroof_ok_ ? " ok; another rank failed: " : ": ") << (msg); \
  } while (0)
