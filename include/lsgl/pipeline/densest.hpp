#pragma once
// `lsgl densest`: read -> init -> optimise -> write, each a named, timed phase with its own
// PETSc log stage; a summary line per run.
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lsgl/dpcd/dense_subgraph.hpp"
#include "lsgl/dpcd/relaxations.hpp"
#include "lsgl/graph/graph_input.hpp"
#include "lsgl/util/monitor.hpp"
#include "lsgl/util/names.hpp"

namespace lsgl {

// --method: dpcd (discrete principal coordinate descent), dpcd-0 (DPCD without the
// neighbourhood search), peel (greedy peeling), ravi (greedy growth from the heaviest edge),
// feige (top k/2 by degree plus best outsiders), tpower (truncated power method), or one of the
// continuous relaxations of lsgl/dpcd/relaxations.hpp: lp, l2box-admm, mpec-epm, mpec-adm.
enum class DensestMethod {
  kDpcd, kDpcd0, kPeel, kRavi, kFeige, kTpower, kLp, kL2box, kMpecEpm, kMpecAdm
};
inline constexpr Named<DensestMethod> kDensestMethodNames[] = {
    {DensestMethod::kDpcd, "dpcd"},         {DensestMethod::kDpcd0, "dpcd-0"},
    {DensestMethod::kPeel, "peel"},         {DensestMethod::kRavi, "ravi"},
    {DensestMethod::kFeige, "feige"},       {DensestMethod::kTpower, "tpower"},
    {DensestMethod::kLp, "lp"},             {DensestMethod::kL2box, "l2box-admm"},
    {DensestMethod::kMpecEpm, "mpec-epm"},  {DensestMethod::kMpecAdm, "mpec-adm"}};
constexpr const auto& names(DensestMethod) { return kDensestMethodNames; }

// --output-format: hdf5 (/subgraph/nodes and attributes) or text (node ids, one per line).
enum class SubgraphFormat { kHdf5, kText };
inline constexpr Named<SubgraphFormat> kSubgraphFormatNames[] = {{SubgraphFormat::kHdf5, "hdf5"},
                                                                 {SubgraphFormat::kText, "text"}};
constexpr const auto& names(SubgraphFormat) { return kSubgraphFormatNames; }

struct DensestOptions {
  std::string graph;
  GraphInputOptions input;
  std::int64_t k = 0;                    // run_method: the size
  DensestMethod method = DensestMethod::kDpcd;  // run_method: the method
  // run_densest: every (size, method) pair is run on the graph read once; a file is written
  // only when there is exactly one pair.
  std::vector<std::int64_t> sizes;
  std::vector<DensestMethod> methods = {DensestMethod::kDpcd};
  std::string output;                    // empty: no file
  std::optional<SubgraphFormat> output_format;  // none: from the --output name
  dpcd::DensestDpcdOptions dpcd;
  int tpower_max_iterations = 100;
  dpcd::LpOptions lp;
  dpcd::L2boxOptions l2box;
  dpcd::MpecOptions mpec;  // mpec-epm and mpec-adm
  std::string command_line;
  std::string configuration;
};

struct DensestSummary {
  DensestMethod method = DensestMethod::kDpcd;
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

// Collective. Reads the graph, runs every (size, method) pair, writes the output for a single
// pair; the phases, notes and a summary line per pair go to `monitor`. Throws CollectiveError
// on bad input (unreadable or malformed graph, k < 1 or k > n, negative weights, unwritable
// output).
std::vector<DensestSummary> run_densest(MPI_Comm comm, const DensestOptions& o,
                                        Monitor& monitor = null_monitor());

// Collective. run_densest on a graph held in memory: `rows` is this rank's block of rows (the
// blocks of lsgl::Partition), already checked and cleaned (graph/symmetry_check.hpp), `input`
// says what was dropped. o.graph is not read; o.output is written when set. Every check of
// run_densest applies.
std::vector<DensestSummary> densest_rows(MPI_Comm comm, const DensestOptions& o, LocalCsr rows,
                                         const GraphInputReport& input,
                                         Monitor& monitor = null_monitor());

// Collective. Runs one method on an already loaded graph (for tests and benchmarks); fills
// members, objective, iterations, init_used, stats and the init/optimise times.
DensestSummary run_method(const dpcd::FixedPointGraph& g, const DensestOptions& o,
                          Monitor& monitor = null_monitor());

}  // namespace lsgl
