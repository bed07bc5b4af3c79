// Distributed graph Laplacian (combinatorial or normalized) as a PETSc MATAIJ matrix.
#include "lsgl/eval/laplacian.hpp"

#include <cmath>
#include <limits>

#include "lsgl/util/error.hpp"
#include "lsgl/util/petsc.hpp"

namespace lsgl {

PetscMatrix& PetscMatrix::operator=(PetscMatrix&& o) noexcept {
  if (this != &o) {
    if (m_) MatDestroy(&m_);
    m_ = o.m_;
    o.m_ = nullptr;
  }
  return *this;
}

PetscMatrix::~PetscMatrix() {
  if (m_) MatDestroy(&m_);
}

std::vector<double> weighted_degrees(const LocalCsr& m) {
  std::vector<double> d(m.local_rows(), 0.0);
  for (std::int64_t r = 0; r < m.local_rows(); ++r)
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) d[r] += m.data[e];
  return d;
}

PetscMatrix laplacian_matrix(const CsrGhosts& ghosts, const LocalCsr& m, LaplacianKind kind,
                             const std::vector<char>* dirichlet, double fixed_diagonal) {
  MPI_Comm comm = ghosts.comm();
  collective_check(comm, m.n <= static_cast<std::int64_t>(std::numeric_limits<PetscInt>::max()),
                   "the graph has " + std::to_string(m.n) +
                       " nodes, more than this PETSc build's index type holds");
  const std::int64_t nl = m.local_rows();
  const auto& slot = ghosts.slot();
  const std::vector<double> deg = weighted_degrees(m);
  std::vector<double> scale;  // D^-1/2 on local and ghost slots (normalized only)
  if (kind == LaplacianKind::kNormalized) {
    std::vector<double> s(nl);
    for (std::int64_t r = 0; r < nl; ++r) s[r] = deg[r] > 0 ? 1.0 / std::sqrt(deg[r]) : 0.0;
    scale = ghosts.extended(s);
  }
  std::vector<char> fixed;  // Dirichlet flags on local and ghost slots
  if (dirichlet) fixed = ghosts.extended(*dirichlet);

  auto is_fixed = [&](std::int64_t s) { return dirichlet && fixed[s]; };
  std::vector<PetscInt> d_nnz(nl, 1), o_nnz(nl, 0);
  for (std::int64_t r = 0; r < nl; ++r) {
    if (is_fixed(r)) continue;
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) {
      if (is_fixed(slot[e])) continue;
      (slot[e] < nl ? d_nnz[r] : o_nnz[r]) += 1;
    }
  }
  Mat A = nullptr;
  petsc_check(MatCreateAIJ(comm, static_cast<PetscInt>(nl), static_cast<PetscInt>(nl),
                           static_cast<PetscInt>(m.n), static_cast<PetscInt>(m.n), 0, d_nnz.data(),
                           0, o_nnz.data(), &A),
              "MatCreateAIJ");
  PetscMatrix out(A);
  PetscInt first = 0, last = 0;
  petsc_check(MatGetOwnershipRange(A, &first, &last), "MatGetOwnershipRange");
  if (first != m.begin || last != m.begin + nl)
    throw LocalError("PETSc ownership range differs from the graph's row blocks");

  std::vector<PetscInt> cols;
  std::vector<PetscScalar> vals;
  for (std::int64_t r = 0; r < nl; ++r) {
    cols.clear();
    vals.clear();
    const PetscInt row = static_cast<PetscInt>(m.begin + r);
    double diag = 1.0;
    if (!is_fixed(r)) {
      if (kind == LaplacianKind::kCombinatorial) {
        diag = deg[r];
      } else {
        diag = deg[r] > 0 ? 1.0 : 0.0;
      }
      bool placed = false;
      for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) {
        if (is_fixed(slot[e])) continue;
        const std::int64_t j = m.indices[e];
        if (!placed && j > row) {
          cols.push_back(row);
          vals.push_back(diag);
          placed = true;
        }
        cols.push_back(static_cast<PetscInt>(j));
        vals.push_back(kind == LaplacianKind::kCombinatorial
                           ? -m.data[e]
                           : -m.data[e] * scale[r] * scale[slot[e]]);
      }
      if (!placed) {
        cols.push_back(row);
        vals.push_back(diag);
      }
    } else {
      cols.push_back(row);
      vals.push_back(fixed_diagonal);
    }
    petsc_check(MatSetValues(A, 1, &row, static_cast<PetscInt>(cols.size()), cols.data(),
                             vals.data(), INSERT_VALUES),
                "MatSetValues");
  }
  petsc_check(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  petsc_check(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
  petsc_check(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE), "MatSetOption");
  return out;
}

}  // namespace lsgl
