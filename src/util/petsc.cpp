#include "lsgl/util/petsc.hpp"

#include <map>

#include "lsgl/util/error.hpp"

namespace lsgl {

void petsc_check(PetscErrorCode ierr, const char* what) {
  if (ierr != 0) throw LocalError(std::string("PETSc call failed: ") + what);
}

LogStage::LogStage(const std::string& name) {
  static std::map<std::string, PetscLogStage> stages;
  auto it = stages.find(name);
  if (it == stages.end()) {
    PetscLogStage stage;
    petsc_check(PetscLogStageRegister(name.c_str(), &stage), "PetscLogStageRegister");
    it = stages.emplace(name, stage).first;
  }
  petsc_check(PetscLogStagePush(it->second), "PetscLogStagePush");
}

LogStage::~LogStage() { PetscLogStagePop(); }

}  // namespace lsgl
