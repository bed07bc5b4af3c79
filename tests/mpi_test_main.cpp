// GoogleTest main for MPI tests: every rank runs every test, only rank 0 prints, and the exit
// code is non-zero on every rank when any rank saw a failure. The temporary directories of the
// tests are removed when every test passed.
#include <gtest/gtest.h>
#include <mpi.h>
#include <petscsys.h>

#include "support.hpp"

namespace {
// Non-zero ranks print only their failed assertions, tagged with the rank.
class FailureListener : public testing::EmptyTestEventListener {
 public:
  explicit FailureListener(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& r) override {
    if (r.failed()) {
      fprintf(stderr, "[rank %d] %s:%d: %s\n", rank_, r.file_name() ? r.file_name() : "?",
              r.line_number(), r.summary());
    }
  }

 private:
  int rank_;
};
}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  PetscInitialize(&argc, &argv, nullptr, nullptr);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailureListener(rank));
  }
  int local_failed = RUN_ALL_TESTS();
  int any_failed = 0;
  MPI_Allreduce(&local_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!any_failed) lsgl::test::remove_shared_tmpdirs();  // after the Allreduce: all ranks done
  PetscFinalize();
  return any_failed ? 1 : 0;
}
