// libFuzzer target: checkpoints of `lsgl learn` (lsgl/learn/checkpoint.hpp). Two templates are
// written at start by write_checkpoint (fbf, and fdpg with its momentum); the input mutates a
// copy (fuzz_support). A checkpoint read must hold what a resume relies on: sizes that match
// the edges and nodes, finite values, theta > 0, a dual scale in (0, inf), a momentum >= 1 and
// counts >= 0, a recall of -1 or in [0, 1]; anything else must be a CollectiveError.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_support.hpp"
#include "lsgl/learn/checkpoint.hpp"
#include "lsgl/util/error.hpp"

namespace {

using namespace lsgl;

struct Template {
  std::string path;
  fuzz::Inventory inv;
};

Template make(bool fdpg) {
  const std::int64_t n = 5;
  std::vector<EdgeEntry> pairs = {{0, 1, 1.0}, {0, 3, 2.0}, {1, 2, 0.5}, {2, 4, 3.0}, {3, 4, 1.5}};
  EdgeSet edges = EdgeSet::from_pairs(MPI_COMM_SELF, n, pairs);
  SolverState s;
  s.w.assign(static_cast<std::size_t>(edges.local_edges()), 0.25);
  s.v.assign(static_cast<std::size_t>(n), 0.5);
  s.iteration = 40;
  s.rescales = 1;
  s.dual_scale = 2.0;
  if (fdpg) {
    s.mu.assign(static_cast<std::size_t>(n), 0.75);
    s.momentum = 3.0;
  }
  Template t;
  t.path = fuzz::scratch_dir() + (fdpg ? "/ck-fdpg.h5" : "/ck-fbf.h5");
  write_checkpoint(t.path, edges, s, CheckpointInfo{"key n=5", 0.8, 0.7, 0.95});
  t.inv = fuzz::inventory(t.path);
  return t;
}

const Template& templ(bool fdpg) {
  static const Template fbf = make(false), with_momentum = make(true);
  return fdpg ? with_momentum : fbf;
}

bool finite_all(const std::vector<double>& v) {
  for (double x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  fuzz::init_process(argc, argv);
  templ(false);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  const Template& t = templ(in.byte() & 1);
  const std::string path = fuzz::scratch_dir() + "/ck.h5";
  fuzz::mutate_copy(t.path, t.inv, path, in);
  try {
    const LoadedCheckpoint c = read_checkpoint(MPI_COMM_SELF, path);
    const SolverState& s = c.state;
    const std::int64_t n = c.edges.n();
    const auto expect = [](bool ok, const char* what) {
      if (ok) return;
      std::fprintf(stderr, "checkpoint read with %s\n", what);
      std::abort();
    };
    expect(n > 0 && static_cast<std::int64_t>(s.v.size()) == n &&
               static_cast<std::int64_t>(s.w.size()) == c.edges.local_edges() &&
               (s.mu.empty() || static_cast<std::int64_t>(s.mu.size()) == n),
           "sizes that do not match");
    expect(finite_all(s.w) && finite_all(s.v) && finite_all(s.mu) && finite_all(c.edges.z()),
           "a non-finite value");
    expect(std::isfinite(c.info.theta) && c.info.theta > 0, "theta not finite and > 0");
    expect(std::isfinite(c.info.theta_eq18) && c.info.theta_eq18 >= 0,
           "theta_eq18 not finite and >= 0");
    expect(c.info.recall == -1 || (c.info.recall >= 0 && c.info.recall <= 1),
           "a recall neither -1 nor in [0, 1]");
    expect(std::isfinite(s.dual_scale) && s.dual_scale > 0, "a dual scale not in (0, inf)");
    expect(std::isfinite(s.momentum) && s.momentum >= 1, "a momentum not finite and >= 1");
    expect(s.iteration >= 0 && s.rescales >= 0, "a negative count");
  } catch (const CollectiveError&) {
  }
  return 0;
}
