#pragma once
// The B-step solvers [DPCD] compares DPCD with on the SDH loss (its Table 4), on the separable
// objective of codes_problem.hpp,
//   f(B) = sum_i ( b_i^T A b_i - 2 c_i^T b_i ) + f0,   b_i in {-1,+1}^r,
// A = W W^T symmetric positive semidefinite. `codes` (local x r, each +-1) is the start and the
// result; c is local x r; factor, when given, is an r x c matrix with A = factor factor^T (the
// products A b are then formed in O(r c) per sample). Samples are in the chunk-aligned blocks of
// chunked.hpp; every global quantity (norms, objectives, stopping tests) is a reproducible sum
// over the blocks or an exact maximum, so the codes do not depend on the number of ranks. Each
// returns the iterations it made (the largest over the ranks for the local ones).
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "lsgl/dpcd/relaxations.hpp"
#include "lsgl/hash/chunked.hpp"
#include "lsgl/util/dense.hpp"

namespace lsgl::hash {

// The objective's data, shared by the solvers.
struct CodeObjective {
  MPI_Comm comm = MPI_COMM_NULL;
  const SampleBlocks* blocks = nullptr;
  int bits = 0;
  const Mat* A = nullptr;
  const Mat* factor = nullptr;  // optional
  const std::vector<double>* c = nullptr;
};

// Collective (the iteration count only). SGM, the signed gradient method of discrete graph
// hashing (Liu et al. 2014; [DPCD] eq. 5): b <- sgn(-grad f(b)) = sgn(c - A b) on every sample
// at once (a zero keeps the bit), until no bit changes on this rank (a fixed point stays one) or
// after max_iterations. Not monotone for this loss ([DPCD] Lemma 1): it may oscillate.
int sgm_bstep(const CodeObjective& f, std::vector<std::int8_t>& codes, int max_iterations);

// Collective. The LP (box) relaxation: b in [-1, 1]^r, projected gradient descent
//   b <- clip(b - grad f(b) / L, -1, 1),  L = 2 lambda_max(A),
// from the current codes, until a step lowers f by at most tol |f| or after max_iterations;
// then b = sgn (a zero keeps the bit).
int lp_bstep(const CodeObjective& f, std::vector<std::int8_t>& codes, const dpcd::LpOptions& o);

// Collective. Wu & Ghanem's lp-box ADMM (p = 2) on x = (b + 1) / 2 in {0,1}^N, N = n r, as
// their ADMM_bqp_unconstrained: the box [0,1]^N and the sphere ||x - 1/2||^2 = N / 4 (one sphere
// for all codes), x-update (2 A' + (rho1 + rho2) I) x = rho1 y1 + rho2 y2 - (b' + z1 + z2) per
// sample (A' = 4A, b' = -4 (A 1 + c_i); solved exactly with one r x r inverse per rho instead of
// their conjugate gradients), multipliers with gamma, rho1, rho2 grown every rho_every
// iterations; stops on max(||x - y1||, ||x - y2||) / N < stop or the relative std of the last
// `history` objectives < std_tol. Starts from the centre x = 1/2 (from a binary start the first
// iterates stay within rounding distance of it at SDH's loss scale, and the stopping test ends the
// run at once) and keeps the best binary point (x >= 1/2) seen, the given codes included, as
// their code keeps its start. The cg_* fields of o are not used.
int l2box_bstep(const CodeObjective& f, std::vector<std::int8_t>& codes,
                const dpcd::L2boxOptions& o);

// Collective. MPEC-EPM (Yuan & Ghanem) on b in [-1, 1]^N with v, ||v||^2 <= N: x-step
// `inner_iterations` projected-gradient steps on f(b) - rho <b, v>, v-step v = sqrt(N) b / ||b||,
// rho grown every `every` iterations; stops when N - <b, v> <= gap_tol or after max_iterations;
// then b = sgn (a zero keeps the given bit). Starts from the centre b = 0, v = 0, so the first
// x-step is the box relaxation (a binary start is a fixed point at SDH's loss scale: the penalty
// rho v outweighs the loss's gradient there).
int mpec_epm_bstep(const CodeObjective& f, std::vector<std::int8_t>& codes,
                   const dpcd::MpecOptions& o);

}  // namespace lsgl::hash
