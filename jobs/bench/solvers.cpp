// Benchmark of the log model's solvers on one fixed allowed edge set (an `lsgl learn`
// checkpoint: edges, distances, theta and the dual scale c that run chose), all in one process
// so that every solver sees the same edges. Not a test.
//   usage: mpirun -n P lsgl_bench_solvers CHECKPOINT.h5 [TARGET 1e-3] [REF_TOL 1e-9] [MAX_ITER]
// Reference: fbf at REF_TOL (checked against fdpg at REF_TOL / 10, see main). Then per solver (fbf with the checkpoint's c and the default step
// and balancing, as `lsgl learn` runs it; fdpg): the iterations and seconds until the weights
// (negatives clipped) are within TARGET relative L1 of the reference, tracked from an
// IterationCallback whose own time is subtracted; and the iterations, seconds and relative L1
// at the default tol (1e-5, "@tol"). Seconds include ||S|| and the final weights.
#include <mpi.h>
#include <petscsys.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "lsgl/learn/checkpoint.hpp"
#include "lsgl/learn/solvers/log.hpp"
#include "lsgl/util/mpi.hpp"

using namespace lsgl;

namespace {

struct Run {
  int iterations = 0;
  double seconds = 0.0;  // wall time of learn_log minus the tracking callback (slowest rank)
  double rel_l1 = 0.0;   // of the returned weights against the reference
  bool reached = false;  // tracking: got within the target
  int restarts = 0;      // fdpg's momentum restarts
};

// Collective. sum |w - ref| / sum |ref| with w's negatives clipped.
double rel_l1(MPI_Comm comm, const std::vector<double>& w, const std::vector<double>& ref) {
  double s[2] = {0.0, 0.0};
  for (std::size_t e = 0; e < w.size(); ++e) {
    s[0] += std::abs(std::max(0.0, w[e]) - ref[e]);
    s[1] += std::abs(ref[e]);
  }
  MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, comm);
  return s[1] > 0 ? s[0] / s[1] : 0.0;
}

double max_over_ranks(MPI_Comm comm, double x) {
  MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, comm);
  return x;
}

// Runs learn_log; with target > 0, stops as soon as the iterate is within target of ref.
Run run(const EdgeSet& e, const std::vector<double>& tz, const SolverParams& sp,
        const std::vector<double>& ref, double target) {
  Run r;
  double tracking = 0.0;
  SolverReport rep;
  IterationCallback track = [&](const IterationInfo&, const std::function<SolverState(bool)>& c) {
    const double t0 = MPI_Wtime();
    r.reached = rel_l1(e.comm(), c(true).w, ref) < target;
    tracking += MPI_Wtime() - t0;
    return r.reached;
  };
  SolverParams params = sp;
  if (target > 0) params.tol = 1e-15;  // stopped by the tracking only
  const double t0 = MPI_Wtime();
  const std::vector<double> w = learn_log(e, tz, params, rep, target > 0 ? track : nullptr);
  r.seconds = max_over_ranks(e.comm(), MPI_Wtime() - t0 - tracking);
  r.iterations = rep.iterations;
  r.restarts = rep.restarts;
  r.rel_l1 = ref.empty() ? 0.0 : rel_l1(e.comm(), w, ref);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  PetscInitialize(&argc, &argv, nullptr, nullptr);
  {
    MPI_Comm comm = MPI_COMM_WORLD;
    const bool talk = comm_rank(comm) == 0;
    if (argc < 2) {
      if (talk) std::fprintf(stderr, "usage: lsgl_bench_solvers CHECKPOINT [TARGET REF_TOL MAX_ITER]\n");
      PetscFinalize();
      return 2;
    }
    const double target = argc > 2 ? std::atof(argv[2]) : 1e-3;
    const double ref_tol = argc > 3 ? std::atof(argv[3]) : 1e-9;
    const int max_iter = argc > 4 ? std::atoi(argv[4]) : 30000;
    LoadedCheckpoint c = read_checkpoint(comm, argv[1]);
    std::vector<double> tz = c.edges.z();
    for (auto& x : tz) x *= c.info.theta;
    SolverParams fbf;
    fbf.dual_scale = c.state.dual_scale;
    fbf.max_iterations = max_iter;
    SolverParams fdpg = fbf;
    fdpg.solver = lsgl::SolverKind::kFdpg;
    SolverParams ref_params = fbf;
    ref_params.tol = ref_tol;
    // The reference: fbf at REF_TOL; fdpg at REF_TOL / 10 as a check (its objective and its
    // distance to the reference), and the reference instead when fbf stopped unconverged at a
    // higher objective.
    SolverReport ref_rep, chk_rep;
    double t0 = MPI_Wtime();
    std::vector<double> ref = learn_log(c.edges, tz, ref_params, ref_rep);
    const double ref_s = max_over_ranks(comm, MPI_Wtime() - t0);
    SolverParams chk_params = fdpg;
    chk_params.tol = ref_tol / 10;
    t0 = MPI_Wtime();
    std::vector<double> chk = learn_log(c.edges, tz, chk_params, chk_rep);
    const double chk_s = max_over_ranks(comm, MPI_Wtime() - t0);
    const double f_ref = log_objective(c.edges, tz, ref), f_chk = log_objective(c.edges, tz, chk);
    const double apart = rel_l1(comm, chk, ref);
    const bool swap = !ref_rep.converged && f_chk < f_ref;
    if (talk)
      std::printf("n %lld, %lld allowed edges, theta %.6g, c %.4g, %d ranks\n"
                  "fbf  tol %.0e: %d iterations%s, %.2f s, objective %.12g\n"
                  "fdpg tol %.0e: %d iterations%s, %.2f s, objective %.12g, rel. L1 to fbf %.2e\n"
                  "reference: %s\n",
                  (long long)c.edges.n(), (long long)c.edges.global_edges(), c.info.theta,
                  c.state.dual_scale, comm_size(comm), ref_tol, ref_rep.iterations,
                  ref_rep.converged ? "" : " (NOT converged)", ref_s, f_ref, chk_params.tol,
                  chk_rep.iterations, chk_rep.converged ? "" : " (NOT converged)", chk_s, f_chk,
                  apart, swap ? "fdpg (fbf not converged, higher objective)" : "fbf");
    if (swap) ref = std::move(chk);
    if (talk)
      std::printf("%-6s %10s %10s %8s | %10s %10s %12s %9s\n", "solver", "it@target", "s@target",
                  "reached", "it@tol", "s@tol", "relL1@tol", "restarts");
    for (const SolverParams* sp : {&fbf, &fdpg}) {
      const Run t = run(c.edges, tz, *sp, ref, target);
      const Run d = run(c.edges, tz, *sp, ref, 0.0);
      if (talk)
        std::printf("%-6s %10d %10.2f %8s | %10d %10.2f %12.2e %9d\n", lsgl::name_of(sp->solver),
                    t.iterations, t.seconds, t.reached ? "yes" : "NO", d.iterations, d.seconds,
                    d.rel_l1, d.restarts);
    }
  }
  PetscFinalize();
  return 0;
}
