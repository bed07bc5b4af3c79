#pragma once
// The graph Laplacian of a cleaned symmetric W as a distributed PETSc matrix (MATAIJ), with the
// rows of each rank equal to its LocalCsr block (lsgl::Partition), so PETSc's ownership ranges
// and lsgl's agree. Used by label propagation (KSP) and the spectral embedding (SLEPc).
#include <petscmat.h>

#include <vector>

#include "lsgl/graph/csr_ghosts.hpp"
#include "lsgl/graph/local_csr.hpp"
#include "lsgl/util/names.hpp"

namespace lsgl {

// Owns a PETSc Mat (destroyed with it). Move-only.
class PetscMatrix {
 public:
  PetscMatrix() = default;
  explicit PetscMatrix(Mat m) : m_(m) {}
  PetscMatrix(PetscMatrix&& o) noexcept : m_(o.m_) { o.m_ = nullptr; }
  PetscMatrix& operator=(PetscMatrix&& o) noexcept;
  PetscMatrix(const PetscMatrix&) = delete;
  PetscMatrix& operator=(const PetscMatrix&) = delete;
  ~PetscMatrix();
  Mat get() const { return m_; }

 private:
  Mat m_ = nullptr;
};

enum class LaplacianKind {
  kCombinatorial,  // L = D - W
  kNormalized,     // L = I - D^-1/2 W D^-1/2 (row and column of an isolated node: 0)
};
inline constexpr Named<LaplacianKind> kLaplacianKindNames[] = {
    {LaplacianKind::kCombinatorial, "combinatorial"}, {LaplacianKind::kNormalized, "normalized"}};
constexpr const auto& names(LaplacianKind) { return kLaplacianKindNames; }

// Collective. The Laplacian of `m`. With `fixed` (one flag per local row), the rows and columns
// of the flagged nodes are replaced by `fixed_diagonal` times those of the identity (the others
// keep their full degree on the diagonal). With fixed_diagonal = 1 this is the matrix of the
// harmonic system L_uu f_u = -L_ul f_l extended by f_l = b_l, symmetric positive definite when
// every component of unflagged nodes touches a flagged node. Throws CollectiveError when n does
// not fit PETSc's index type.
PetscMatrix laplacian_matrix(const CsrGhosts& ghosts, const LocalCsr& m, LaplacianKind kind,
                             const std::vector<char>* fixed = nullptr, double fixed_diagonal = 1.0);

// Weighted degrees (row sums of W) of the local rows. Local.
std::vector<double> weighted_degrees(const LocalCsr& m);

}  // namespace lsgl
