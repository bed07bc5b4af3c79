// Checks on the BLAS in use (see blas.hpp).
#include "lsgl/util/blas.hpp"

#include <cblas.h>

namespace lsgl {

std::string blas_kernel_advice() {
  const std::string core = openblas_get_corename();
  const bool generic = core == "Prescott" || core == "Core2" || core == "Penryn" ||
                       core == "Dunnington" || core == "Nehalem" || core == "Sandybridge";
  if (!generic || !__builtin_cpu_supports("avx2")) return "";
  const char* better = __builtin_cpu_supports("avx512f") ? "SkylakeX" : "Haswell";
  return "note: OpenBLAS uses its " + core +
         " kernels on this AVX2 CPU; export OPENBLAS_CORETYPE=" + better +
         " for several times faster dense algebra (jobs/env.sh does this)";
}

}  // namespace lsgl
