#pragma once
// Checks on the BLAS in use. Local.
#include <string>

namespace lsgl {

// A one-line advice when OpenBLAS runs its generic SSE3 kernels on a CPU that has AVX2 (a CPU
// model it does not know, common on virtual machines); "" otherwise.
std::string blas_kernel_advice();

}  // namespace lsgl
