// Spectral embedding by SLEPc on the distributed Laplacian; HDF5 output.
#include "lsgl/eval/spectral_embedding.hpp"

#include <slepceps.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lsgl/graph/graph_io.hpp"
#include "lsgl/io/attributes.hpp"
#include "lsgl/io/h5.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/memory.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/petsc.hpp"

namespace lsgl {

namespace {

struct EpsGuard {
  EPS eps = nullptr;
  Vec x = nullptr, trivial = nullptr;
  ~EpsGuard() {
    if (eps) EPSDestroy(&eps);
    if (x) VecDestroy(&x);
    if (trivial) VecDestroy(&trivial);
  }
};

// main() calls PetscInitialize; SLEPc's classes need SlepcInitialize too, which only registers
// SLEPc when PETSc is already running (PetscFinalize then also finalises SLEPc's packages).
void ensure_slepc() {
  PetscBool started = PETSC_FALSE;
  petsc_check(SlepcInitialized(&started), "SlepcInitialized");
  if (!started) petsc_check(SlepcInitialize(nullptr, nullptr, nullptr, nullptr), "SlepcInitialize");
}

// Local. The trivial eigenvector on the component into t: 1 (combinatorial) or D^1/2 1
// (normalized), 0 outside it; normalised.
void set_trivial_vector(const std::vector<char>& outside, const std::vector<double>& deg,
                        LaplacianKind kind, Vec t) {
  PetscScalar* v = nullptr;
  petsc_check(VecGetArray(t, &v), "VecGetArray");
  for (std::size_t r = 0; r < outside.size(); ++r)
    v[r] = outside[r]                             ? 0.0
           : kind == LaplacianKind::kCombinatorial ? 1.0
                                                   : std::sqrt(deg[r]);
  petsc_check(VecRestoreArray(t, &v), "VecRestoreArray");
  PetscReal norm = 0;
  petsc_check(VecNormalize(t, &norm), "VecNormalize");
}

// Collective. g's eigensolver for the smallest eigenpairs of L with a subspace of ncv vectors,
// g.trivial deflated, then SLEPc's options of prefix emb_.
void make_eigensolver(MPI_Comm comm, const PetscMatrix& L, const EmbeddingParams& params,
                      PetscInt ncv, EpsGuard& g) {
  petsc_check(EPSCreate(comm, &g.eps), "EPSCreate");
  petsc_check(EPSSetOperators(g.eps, L.get(), nullptr), "EPSSetOperators");
  petsc_check(EPSSetProblemType(g.eps, EPS_HEP), "EPSSetProblemType");
  petsc_check(EPSSetWhichEigenpairs(g.eps, EPS_SMALLEST_REAL), "EPSSetWhichEigenpairs");
  petsc_check(EPSSetDimensions(g.eps, params.vectors, ncv, PETSC_DEFAULT), "EPSSetDimensions");
  petsc_check(EPSSetTolerances(g.eps, params.tol,
                               params.max_iterations > 0 ? params.max_iterations : PETSC_DEFAULT),
              "EPSSetTolerances");
  // Residuals relative to ||L|| (not to |lambda|, which is 0 on a disconnected graph).
  petsc_check(EPSSetConvergenceTest(g.eps, EPS_CONV_NORM), "EPSSetConvergenceTest");
  petsc_check(EPSSetDeflationSpace(g.eps, 1, &g.trivial), "EPSSetDeflationSpace");
  petsc_check(EPSSetOptionsPrefix(g.eps, "emb_"), "EPSSetOptionsPrefix");
  petsc_check(EPSSetFromOptions(g.eps), "EPSSetFromOptions");
}

// Collective. The sign that makes the entry of largest magnitude of the eigenvector x (this
// rank's m.local_rows() entries) positive, the smallest index on ties.
double eigenvector_sign(MPI_Comm comm, const LocalCsr& m, const PetscScalar* x) {
  const std::int64_t nl = m.local_rows();
  struct {
    double v;
    int i;
  } loc{0.0, 0}, glob{0.0, 0};
  std::int64_t best_r = -1;
  for (std::int64_t r = 0; r < nl; ++r)
    if (std::fabs(x[r]) > loc.v) {
      loc.v = std::fabs(x[r]);
      best_r = r;
    }
  loc.i = best_r >= 0 ? static_cast<int>(m.begin + best_r) : static_cast<int>(m.n);
  MPI_Allreduce(&loc, &glob, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
  double sign_value = (glob.i >= m.begin && glob.i < m.begin + nl) ? x[glob.i - m.begin] : 0.0;
  MPI_Allreduce(MPI_IN_PLACE, &sign_value, 1, MPI_DOUBLE, MPI_SUM, comm);
  return sign_value < 0 ? -1.0 : 1.0;
}

}  // namespace

Embedding spectral_embedding(const CsrGhosts& ghosts, const LocalCsr& m, const Components& c,
                             const EmbeddingParams& params) {
  MPI_Comm comm = ghosts.comm();
  collective_check(comm, params.vectors >= 1 && params.vectors < c.largest_size,
                   "--eigenvectors must be in [1, s - 1] for the largest component's s = " +
                       std::to_string(c.largest_size) + " nodes");
  // A larger subspace than SLEPc's default max(2m, m + 15): the smallest Laplacian eigenvalues
  // are tightly clustered near 0 (Fashion-MNIST k = 10, m = 4: 446 restarts with the default,
  // 50 with 64 vectors, about 5x less time).
  const PetscInt ncv = static_cast<PetscInt>(
      std::min<std::int64_t>(m.n, std::max(2 * params.vectors + 1, params.vectors + 60)));
  const std::int64_t nl = m.local_rows();
  // The subspace's vectors (twice: the basis and SLEPc's work space) and the embedding.
  check_allocation(comm, 8.0 * static_cast<double>(nl) * (2.0 * ncv + params.vectors),
                   "--eigenvectors " + std::to_string(params.vectors));
  ensure_slepc();
  const std::vector<double> deg = weighted_degrees(m);
  std::vector<char> outside(nl);
  double dmax = 0;
  for (std::int64_t r = 0; r < nl; ++r) {
    outside[r] = c.id[r] != c.largest_id;
    dmax = std::max(dmax, deg[r]);
  }
  MPI_Allreduce(MPI_IN_PLACE, &dmax, 1, MPI_DOUBLE, MPI_MAX, comm);
  // Above the spectrum of L: Gershgorin gives lambda_max <= 2 max degree (2 when normalized).
  const double sigma = params.kind == LaplacianKind::kCombinatorial ? 2 * dmax + 1 : 3.0;
  const PetscMatrix L = laplacian_matrix(ghosts, m, params.kind, &outside, sigma);
  EpsGuard g;
  petsc_check(MatCreateVecs(L.get(), &g.x, &g.trivial), "MatCreateVecs");
  set_trivial_vector(outside, deg, params.kind, g.trivial);
  make_eigensolver(comm, L, params, ncv, g);
  petsc_check(EPSSolve(g.eps), "EPSSolve");
  PetscInt nconv = 0, its = 0;
  petsc_check(EPSGetConverged(g.eps, &nconv), "EPSGetConverged");
  petsc_check(EPSGetIterationNumber(g.eps, &its), "EPSGetIterationNumber");
  collective_check(comm, nconv >= params.vectors,
                   "spectral embedding: only " + std::to_string(nconv) + " of " +
                       std::to_string(params.vectors) + " eigenpairs converged in " +
                       std::to_string(its) + " iterations (raise -emb_eps_max_it or -emb_eps_ncv)");
  Embedding out;
  out.m = params.vectors;
  out.component_id = c.largest_id;
  out.component_nodes = c.largest_size;
  out.iterations = static_cast<int>(its);
  {
    EPSType t = nullptr;
    petsc_check(EPSGetType(g.eps, &t), "EPSGetType");
    out.solver = t ? t : "?";
  }
  out.vectors.assign(static_cast<std::size_t>(nl) * out.m, 0.0);
  for (int k = 0; k < out.m; ++k) {
    PetscScalar lambda = 0;
    PetscReal err = 0;
    petsc_check(EPSGetEigenpair(g.eps, k, &lambda, nullptr, g.x, nullptr), "EPSGetEigenpair");
    petsc_check(EPSComputeError(g.eps, k, EPS_ERROR_BACKWARD, &err), "EPSComputeError");
    PetscReal norm = 0;
    petsc_check(VecNormalize(g.x, &norm), "VecNormalize");
    const PetscScalar* x = nullptr;
    petsc_check(VecGetArrayRead(g.x, &x), "VecGetArrayRead");
    const double sign = eigenvector_sign(comm, m, x);
    for (std::int64_t r = 0; r < nl; ++r)
      out.vectors[static_cast<std::size_t>(r) * out.m + k] = outside[r] ? 0.0 : sign * x[r];
    petsc_check(VecRestoreArrayRead(g.x, &x), "VecRestoreArrayRead");
    out.values.push_back(lambda);
    out.residuals.push_back(err);
  }
  return out;
}

void write_embedding(MPI_Comm comm, const std::string& path, const Embedding& e, const LocalCsr& m,
                     const std::string& graph, LaplacianKind kind, const Attributes& file_attrs) {
  check_finite_values(comm, "embedding",
                      {{"/embedding/vectors", &e.vectors},
                       {"/embedding/values", &e.values},
                       {"/embedding/residuals", &e.residuals}},
                      {});
  write_hdf5_atomically(comm, path, [&](const h5::File& f) {
    h5::ensure_group(f, "/embedding");
    h5::write_2d(f, "/embedding/vectors", e.vectors, m.begin, m.n, e.m);
    const bool root = comm_rank(comm) == 0;
    h5::write_1d(f, "/embedding/values", root ? e.values : std::vector<double>(), root ? 0 : e.m,
                 e.m);
    h5::write_1d(f, "/embedding/residuals", root ? e.residuals : std::vector<double>(),
                 root ? 0 : e.m, e.m);
    h5::set_attr(f, "/embedding", "laplacian", to_string(kind));
    h5::set_attr(f, "/embedding", "n", m.n);
    h5::set_attr(f, "/embedding", "m", static_cast<std::int64_t>(e.m));
    h5::set_attr(f, "/embedding", "graph", graph);
    h5::set_attr(f, "/embedding", "component_nodes", e.component_nodes);
    h5::set_attr(f, "/embedding", "component_id", e.component_id);
    h5::set_attr(f, "/embedding", "solver", e.solver);
    set_attributes(f, "/", file_attrs);
  });
}

}  // namespace lsgl
