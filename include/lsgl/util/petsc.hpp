#pragma once
// PETSc error codes to exceptions, and PETSc log stages as a scope guard.
#include <petscsys.h>

#include <string>

namespace lsgl {

// Throws LocalError (rank-local failure) when a PETSc call returned an error code. Not collective.
void petsc_check(PetscErrorCode ierr, const char* what);

// Pushes a named PETSc log stage (shown by -log_view) for its lifetime. Not collective, but every
// rank must create the same stages in the same order.
class LogStage {
 public:
  explicit LogStage(const std::string& name);
  ~LogStage();
  LogStage(const LogStage&) = delete;
  LogStage& operator=(const LogStage&) = delete;
};

}  // namespace lsgl
