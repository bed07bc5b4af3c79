#pragma once
// The symmetrisation of graph input (the `symmetrise` policy of graph_input.hpp), the same for
// every format: self-loops and zero weights are dropped; repeated entries (i, j) are merged by
// the duplicate rule (sum: parallel edges add up, the default; or max); then
// W_ij = W_ji = max(a_ij, a_ji), where a_ij is the merged weight listed as (i, j) (0 when
// absent). So an edge listed once counts as undirected, and a file that lists both directions
// with equal weights is read unchanged. Pairs listed in one direction only or with two different
// weights are counted and reported (GraphInputReport::note()).
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/graph/local_csr.hpp"
#include "lsgl/graph/text_graph.hpp"
#include "lsgl/util/names.hpp"

namespace lsgl {

enum class DuplicateRule { kSum, kMax };
inline constexpr Named<DuplicateRule> kDuplicateRuleNames[] = {{DuplicateRule::kSum, "sum"},
                                                               {DuplicateRule::kMax, "max"}};
constexpr const auto& names(DuplicateRule) { return kDuplicateRuleNames; }

// What reading found; identical on every rank.
struct GraphInputReport {
  std::string format;                // hdf5, edgelist, edgelist.gz, mtx, mtx.gz
  std::int64_t n = 0;
  std::int64_t entries = 0;          // directed entries read (text lines or stored entries)
  std::int64_t self_loops = 0;       // dropped
  std::int64_t zero_weights = 0;     // dropped
  std::int64_t duplicates = 0;       // repeated (i, j) entries merged by the duplicate rule
  std::int64_t one_direction = 0;    // pairs listed as (i, j) but not as (j, i)
  std::int64_t unequal = 0;          // pairs listed both ways with different weights
  std::string first_unequal;         // the pair of those with the smallest (i, j), as text
  std::int64_t edges = 0;            // undirected edges of the result
  bool declared_symmetric = false;   // Matrix Market "symmetric" (one triangle stored)
  bool weighted = false;             // some weight differs from 1
  bool header = false;               // edge list: a header line was skipped
  bool renumbered = false;           // edge list: names numbered densely (--renumber)
  bool symmetric() const { return one_direction == 0 && unequal == 0; }
  // One line about asymmetry, self-loops and duplicates; empty when there is nothing to say.
  std::string note() const;
};

// Collective. The symmetric rows built from directed entries given on any rank (ids in
// [0, n), weights finite and >= 0; see the normalisation above). Counts go to `report`
// (entries, self_loops, zero_weights, duplicates, one_direction, unequal, first_unequal, edges,
// weighted).
LocalCsr symmetrize_entries(MPI_Comm comm, std::int64_t n, std::vector<DirectedEntry> entries,
                            DuplicateRule rule, GraphInputReport* report);

// Collective. Checks rows read from an HDF5 graph (ids in range, weights finite and >= 0) and
// returns them unchanged when they are already symmetric with sorted columns, no self-loops and
// no zeros; otherwise normalises them like any other input.
LocalCsr normalize_rows(MPI_Comm comm, LocalCsr rows, DuplicateRule rule,
                        GraphInputReport* report);

}  // namespace lsgl
