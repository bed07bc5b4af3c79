// Label propagation: seeded choice of the known nodes, harmonic solution per class (PETSc KSP).
#include "lsgl/eval/label_propagation.hpp"

#include <petscksp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "lsgl/eval/laplacian.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/petsc.hpp"
#include "lsgl/util/splitmix.hpp"

namespace lsgl {

namespace {

std::uint64_t node_key(std::uint64_t seed, std::int64_t i) {
  return mix64(static_cast<std::uint64_t>(i) + mix64(seed) * kSplitMixGamma);
}

struct KspGuard {
  KSP ksp = nullptr;
  Vec x = nullptr, b = nullptr;
  ~KspGuard() {
    if (ksp) KSPDestroy(&ksp);
    if (x) VecDestroy(&x);
    if (b) VecDestroy(&b);
  }
};

}  // namespace

std::vector<char> select_known_nodes(MPI_Comm comm, std::int64_t n, std::int64_t begin,
                                     std::int64_t count, double fraction, std::uint64_t seed) {
  collective_check(comm, fraction > 0 && fraction <= 1, "the known fraction must be in (0, 1]");
  const std::int64_t want = std::min<std::int64_t>(
      n, std::max<std::int64_t>(1, std::llround(fraction * static_cast<double>(n))));
  std::vector<std::uint64_t> key(count);
  for (std::int64_t r = 0; r < count; ++r) key[r] = node_key(seed, begin + r);
  // Smallest threshold t with #{key <= t} >= want; keys are distinct, so that count is exact.
  std::uint64_t lo = 0, hi = std::numeric_limits<std::uint64_t>::max();
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    std::int64_t c = 0;
    for (const std::uint64_t k : key) c += k <= mid;
    c = allreduce_sum(comm, c);
    if (c >= want)
      hi = mid;
    else
      lo = mid + 1;
  }
  std::vector<char> known(count);
  for (std::int64_t r = 0; r < count; ++r) known[r] = key[r] <= lo;
  return known;
}

namespace {

// Collective. The nodes whose value the harmonic problem fixes: the known ones and those of
// components without a known node (unreachable). Sets res.known, unknown and unreachable.
std::vector<char> fixed_nodes(const CsrGhosts& ghosts, const LocalCsr& m,
                              const Components& components, const NodeLabels& labels,
                              const std::vector<char>& known, LabelPropagationResult& res) {
  MPI_Comm comm = ghosts.comm();
  const std::int64_t nl = m.local_rows();
  // Reachable: the component holds a known node.
  std::vector<std::int64_t> k64(nl);
  for (std::int64_t r = 0; r < nl; ++r) k64[r] = known[r] ? 1 : 0;
  const std::vector<std::int64_t> known_in_component = component_sums(ghosts, components, k64);
  std::vector<char> fixed(nl);
  std::int64_t counts[2] = {0, 0};  // known, unreachable
  for (std::int64_t r = 0; r < nl; ++r) {
    fixed[r] = known[r] || known_in_component[r] == 0;
    counts[0] += known[r] ? 1 : 0;
    counts[1] += known_in_component[r] == 0 && labels.index[r] >= 0 ? 1 : 0;
  }
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT64_T, MPI_SUM, comm);
  res.known = counts[0];
  res.unknown = m.n - labels.unlabelled - counts[0];
  res.unreachable = counts[1];
  return fixed;
}

// Collective. g's solver of the harmonic systems with matrix A: CG with Jacobi, then PETSc's
// options of prefix lp_; res.solver names what runs ("cg+jacobi").
void make_solver(MPI_Comm comm, const PetscMatrix& A, const LabelPropagationParams& params,
                 KspGuard& g, LabelPropagationResult& res) {
  petsc_check(MatCreateVecs(A.get(), &g.x, &g.b), "MatCreateVecs");
  petsc_check(KSPCreate(comm, &g.ksp), "KSPCreate");
  petsc_check(KSPSetOperators(g.ksp, A.get(), A.get()), "KSPSetOperators");
  petsc_check(KSPSetType(g.ksp, KSPCG), "KSPSetType");
  PC pc = nullptr;
  petsc_check(KSPGetPC(g.ksp, &pc), "KSPGetPC");
  petsc_check(PCSetType(pc, PCJACOBI), "PCSetType");
  petsc_check(
      KSPSetTolerances(g.ksp, params.rtol, PETSC_DEFAULT, PETSC_DEFAULT, params.max_iterations),
      "KSPSetTolerances");
  petsc_check(KSPSetOptionsPrefix(g.ksp, "lp_"), "KSPSetOptionsPrefix");
  petsc_check(KSPSetFromOptions(g.ksp), "KSPSetFromOptions");
  KSPType kt = nullptr;
  PCType pt = nullptr;
  petsc_check(KSPGetType(g.ksp, &kt), "KSPGetType");
  petsc_check(PCGetType(pc, &pt), "PCGetType");
  res.solver = std::string(kt ? kt : "?") + "+" + (pt ? pt : "?");
}

// Local. The right-hand side of class c into b: 1 or 0 on the known nodes, on the reachable
// unknown ones the sum of W_rj over their known neighbours of class c (cls: the class of each
// known node on local and ghost slots, -1 elsewhere).
void class_rhs(const CsrGhosts& ghosts, const LocalCsr& m, const NodeLabels& labels,
               const std::vector<char>& known, const std::vector<char>& fixed,
               const std::vector<std::int32_t>& cls, int c, Vec b) {
  const auto& slot = ghosts.slot();
  PetscScalar* v = nullptr;
  petsc_check(VecGetArray(b, &v), "VecGetArray");
  for (std::int64_t r = 0; r < m.local_rows(); ++r) {
    double s = 0;
    if (known[r]) {
      s = labels.index[r] == c ? 1.0 : 0.0;
    } else if (!fixed[r]) {
      for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e)
        if (cls[slot[e]] == c) s += m.data[e];
    }
    v[r] = s;
  }
  petsc_check(VecRestoreArray(b, &v), "VecRestoreArray");
}

// Collective. Known nodes predicted as their own class (score 1); res.correct and the
// accuracies over the unknown labelled nodes, all and reachable (res.prediction: one per local
// row).
void score_predictions(MPI_Comm comm, const NodeLabels& labels, const std::vector<char>& known,
                       const LabelPropagationParams& params, int C,
                       LabelPropagationResult& res) {
  std::int64_t correct = 0;
  const auto nl = static_cast<std::int64_t>(res.prediction.size());
  for (std::int64_t r = 0; r < nl; ++r) {
    if (known[r]) {
      res.prediction[r] = labels.index[r];
      if (params.keep_scores) res.scores[r * C + labels.index[r]] = 1.0;
    } else if (labels.index[r] >= 0 && res.prediction[r] == labels.index[r]) {
      ++correct;
    }
  }
  res.correct = allreduce_sum(comm, correct);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  res.accuracy = res.unknown > 0 ? double(res.correct) / double(res.unknown) : nan;
  const std::int64_t reachable = res.unknown - res.unreachable;
  res.accuracy_reachable = reachable > 0 ? double(res.correct) / double(reachable) : nan;
}

}  // namespace

LabelPropagationResult propagate_labels(const CsrGhosts& ghosts, const LocalCsr& m,
                                        const Components& components, const NodeLabels& labels,
                                        const std::vector<char>& known,
                                        const LabelPropagationParams& params) {
  MPI_Comm comm = ghosts.comm();
  const std::int64_t nl = m.local_rows();
  const int C = labels.num_classes();
  LabelPropagationResult res;
  res.known_flag = known;
  const std::vector<char> fixed = fixed_nodes(ghosts, m, components, labels, known, res);

  // Class index of each known node, on local and ghost slots (-1: unknown).
  std::vector<std::int32_t> known_class(nl, -1);
  for (std::int64_t r = 0; r < nl; ++r)
    if (known[r]) known_class[r] = labels.index[r];
  const std::vector<std::int32_t> cls = ghosts.extended(known_class);
  std::vector<int> class_known(C, 0);
  for (std::int64_t r = 0; r < nl; ++r)
    if (known[r]) class_known[labels.index[r]] = 1;
  MPI_Allreduce(MPI_IN_PLACE, class_known.data(), C, MPI_INT, MPI_MAX, comm);

  const PetscMatrix A = laplacian_matrix(ghosts, m, LaplacianKind::kCombinatorial, &fixed);
  KspGuard g;
  make_solver(comm, A, params, g, res);

  std::vector<double> best(nl, -std::numeric_limits<double>::infinity());
  res.prediction.assign(nl, -1);
  if (params.keep_scores) res.scores.assign(nl * C, 0.0);
  for (int c = 0; c < C; ++c) {
    if (!class_known[c]) continue;  // f_c = 0 everywhere
    class_rhs(ghosts, m, labels, known, fixed, cls, c, g.b);
    petsc_check(VecSet(g.x, 0.0), "VecSet");
    petsc_check(KSPSolve(g.ksp, g.b, g.x), "KSPSolve");
    KSPConvergedReason reason;
    PetscInt its = 0;
    petsc_check(KSPGetConvergedReason(g.ksp, &reason), "KSPGetConvergedReason");
    petsc_check(KSPGetIterationNumber(g.ksp, &its), "KSPGetIterationNumber");
    ++res.solves;
    res.iterations_total += its;
    res.iterations_max = std::max<std::int64_t>(res.iterations_max, its);
    if (reason < 0) res.converged = false;
    const PetscScalar* x = nullptr;
    petsc_check(VecGetArrayRead(g.x, &x), "VecGetArrayRead");
    for (std::int64_t r = 0; r < nl; ++r) {
      if (fixed[r]) continue;
      if (params.keep_scores) res.scores[r * C + c] = x[r];
      if (x[r] > best[r]) {
        best[r] = x[r];
        res.prediction[r] = c;
      }
    }
    petsc_check(VecRestoreArrayRead(g.x, &x), "VecRestoreArrayRead");
  }
  score_predictions(comm, labels, known, params, C, res);
  return res;
}

}  // namespace lsgl
