#pragma once
// Spectral embedding of the largest connected component (as the diameter; the whole graph when
// it is connected): the eigenvectors of the m smallest eigenvalues of its Laplacian after the
// trivial one (the component's indicator for L = D - W, D^1/2 1 on it for the normalized
// Laplacian), computed by SLEPc (Krylov-Schur by default) on the distributed PETSc matrix with
// the trivial vector deflated. Nodes outside the component get zero rows: their rows and columns
// of the matrix are replaced by sigma I with sigma above the spectrum of L (2 max degree + 1, or
// 3 for the normalized Laplacian), so they never enter the wanted eigenpairs. Restricting to one
// component avoids the zero eigenvalue of multiplicity (components - 1), which a Krylov method
// cannot resolve (isolated nodes alone would give one per node). Each vector has unit 2-norm and
// its entry of largest magnitude (ties: smallest index) positive. A multiple eigenvalue's vectors
// are one basis of its eigenspace.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/eval/components.hpp"
#include "lsgl/eval/laplacian.hpp"
#include "lsgl/graph/csr_ghosts.hpp"
#include "lsgl/graph/local_csr.hpp"
#include "lsgl/io/attributes.hpp"

namespace lsgl {

struct EmbeddingParams {
  int vectors = 2;  // m
  LaplacianKind kind = LaplacianKind::kCombinatorial;
  double tol = 1e-8;       // SLEPc tolerance on ||L v - lambda v|| / ||L|| (EPS_CONV_NORM)
  int max_iterations = 0;  // 0: SLEPc's default
};

struct Embedding {
  int m = 0;
  std::vector<double> values;        // m eigenvalues, ascending
  std::vector<double> residuals;     // backward errors ||L v - lambda v|| / (||L|| + |lambda|)
  std::vector<double> vectors;       // local rows x m, row-major
  int iterations = 0;                // SLEPc restarts / iterations
  std::string solver;                // EPS type
  std::int64_t component_id = 0;     // smallest node of the embedded component
  std::int64_t component_nodes = 0;  // its size
};

// Krylov-Schur keeps max(2m + 1, m + 60) basis vectors (at most n), i.e. that many distributed
// vectors of length n.
// Collective. Throws CollectiveError when m < 1, m >= the component's size, or fewer than m
// eigenpairs converged. PETSc/SLEPc options with prefix -emb_ (e.g. -emb_eps_ncv 64,
// -emb_eps_max_it 1000) override.
Embedding spectral_embedding(const CsrGhosts& ghosts, const LocalCsr& m, const Components& c,
                             const EmbeddingParams& params);

// Collective. Writes /embedding/vectors (n x m float64) and /embedding/values (m float64) with
// attributes laplacian, n, m, graph, component_nodes, and `file_attrs` (the provenance,
// io/attributes.hpp) on "/", to `path` through a temporary name renamed on success. A NaN or
// infinite value is refused on every rank before anything is written.
void write_embedding(MPI_Comm comm, const std::string& path, const Embedding& e, const LocalCsr& m,
                     const std::string& graph, LaplacianKind kind, const Attributes& file_attrs);

}  // namespace lsgl
