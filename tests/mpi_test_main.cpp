// GoogleTest main for tests that run under mpirun: MPI is initialised once,
// only rank 0 prints gtest's output, and the exit status is agreed across
// ranks so that one failing rank fails the whole test without hanging it.
//
// The status says what happened, so CTest cannot count a skip as a pass:
//   0   every selected case ran and passed;
//   1   a case failed on some rank, or no case was selected at all (a
//       --gtest_filter that matches nothing tests nothing);
//   77  no failure, but a case skipped itself on some rank (GTEST_SKIP: no
//       GPU, fewer GPUs than ranks). add_mpi_test registers 77 as the
//       test's SKIP_RETURN_CODE, so CTest reports it as skipped.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

namespace {

constexpr int kSkipped = 77;

int agreed_max(int mine) {
  int most = 0;
  MPI_Allreduce(&mine, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return most;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int failed = agreed_max(RUN_ALL_TESTS() != 0 ? 1 : 0);
  const auto& unit = *::testing::UnitTest::GetInstance();
  const int skipped = agreed_max(unit.skipped_test_count());
  const int ran = unit.test_to_run_count();
  MPI_Finalize();
  if (failed) return 1;
  if (ran == 0) {
    if (rank == 0) std::fprintf(stderr, "mpi_test_main: no test case was selected: nothing was tested\n");
    return 1;
  }
  if (skipped > 0) {
    if (rank == 0)
      std::fprintf(stderr, "mpi_test_main: %d of %d test cases skipped themselves (see [  SKIPPED ] above); "
                           "exit status %d, which CTest reports as a skipped test\n",
                   skipped, ran, kSkipped);
    return kSkipped;
  }
  return 0;
}
