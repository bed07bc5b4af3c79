#pragma once
// `lsgl densest`: read -> init -> optimise -> write, each a named, timed phase with its own
// PETSc log stage; a summary line on rank 0.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/dpcd/dense_subgraph.hpp"
#include "lsgl/graph/graph_input.hpp"

namespace lsgl {

struct DensestOptions {
  std::string graph;
  GraphInputOptions input;
  std::int64_t k = 0;                    // run_method: the size
  std::string method = "dpcd";          // run_method: dpcd | peel | ravi | feige | tpower
  // run_densest: every (size, method) pair is run on the graph read once; a file is written
  // only when there is exactly one pair.
  std::vector<std::int64_t> sizes;
  std::vector<std::string> methods = {"dpcd"};
  std::string output;                    // empty: no file
  std::string output_format;    // hdf5 | text; empty: from the --output name
  dpcd::DensestDpcdOptions dpcd;
  int tpower_max_iterations = 100;
  bool quiet = false;
  std::string command_line;
  std::string configuration;
};

struct DensestSummary {
  std::string method;
  std::string init_used;                 // dpcd: the initial set kept; tpower: "degree"
  dpcd::SubgraphStats stats;
  std::vector<std::int64_t> members;     // this rank's members, sorted global ids
  std::vector<double> objective;         // x^T W x after each iteration ([0]: initial)
  int iterations = 0;
  bool converged = false;
  double seconds = 0.0;                  // init + optimise (the method's own time)
  double t_read = 0, t_init = 0, t_optimise = 0, t_write = 0;
  GraphInputReport input;
};

// Collective. Reads the graph, runs every (size, method) pair, writes the output for a single
// pair, prints a summary line per pair on rank 0. Throws CollectiveError on bad input
// (unreadable or malformed graph, k < 1 or k > n, negative weights, unknown method, unwritable
// output).
std::vector<DensestSummary> run_densest(MPI_Comm comm, const DensestOptions& o);

// Collective. Runs one method on an already loaded graph (for tests and benchmarks); fills
// members, objective, iterations, init_used, stats and the init/optimise times.
DensestSummary run_method(const dpcd::FixedPointGraph& g, const DensestOptions& o);

}  // namespace lsgl
