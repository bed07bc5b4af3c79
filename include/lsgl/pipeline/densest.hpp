#pragma once
// `lsgl densest`: read -> init -> optimise -> write, each a named, timed phase with its own
// PETSc log stage; a summary line on rank 0.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/dpcd/dense_subgraph.hpp"
#include "lsgl/dpcd/relaxations.hpp"
#include "lsgl/graph/graph_input.hpp"

namespace lsgl {

struct DensestOptions {
  std::string graph;
  GraphInputOptions input;
  std::int64_t k = 0;                    // run_method: the size
  // run_method: dpcd | dpcd-0 | peel | ravi | feige | tpower | lp | l2box-admm | mpec-epm |
  // mpec-adm (densest_methods())
  std::string method = "dpcd";
  // run_densest: every (size, method) pair is run on the graph read once; a file is written
  // only when there is exactly one pair.
  std::vector<std::int64_t> sizes;
  std::vector<std::string> methods = {"dpcd"};
  std::string output;                    // empty: no file
  std::string output_format = "hdf5";    // hdf5 | text
  dpcd::DensestDpcdOptions dpcd;
  int tpower_max_iterations = 100;
  dpcd::LpOptions lp;
  dpcd::L2boxOptions l2box;
  dpcd::MpecOptions mpec;            // mpec-epm and mpec-adm
  bool quiet = false;
  std::string command_line;
  std::string configuration;
};

struct DensestSummary {
  std::string method;
  std::string init_used;                 // dpcd: the initial set kept; tpower: "degree"
  dpcd::SubgraphStats stats;
  std::vector<std::int64_t> members;     // this rank's members, sorted global ids
  std::vector<double> objective;         // x^T W x after each iteration ([0]: initial; of the
                                         // continuous x for the relaxations)
  int iterations = 0;
  std::int64_t inner = 0;                // relaxations: CG iterations or ascent steps
  std::int64_t products = 0;             // relaxations: products W x
  bool converged = false;
  double seconds = 0.0;                  // init + optimise (the method's own time)
  double t_read = 0, t_init = 0, t_optimise = 0, t_write = 0;
  GraphInputReport input;
};

// Local. The methods of `lsgl densest --method`, in the order of the documentation.
const std::vector<std::string>& densest_methods();

// Collective. Reads the graph, runs every (size, method) pair, writes the output for a single
// pair, prints a summary line per pair on rank 0. Throws CollectiveError on bad input
// (unreadable or malformed graph, k < 1 or k > n, negative weights, unknown method, unwritable
// output).
std::vector<DensestSummary> run_densest(MPI_Comm comm, const DensestOptions& o);

// Collective. Runs one method on an already loaded graph (for tests and benchmarks); fills
// members, objective, iterations, init_used, stats and the init/optimise times.
DensestSummary run_method(const dpcd::FixedPointGraph& g, const DensestOptions& o);

}  // namespace lsgl
