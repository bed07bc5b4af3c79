#pragma once
// `--renumber`: the node names of an edge list (any field: "a", "ENSG00000141510", 10^12)
// become dense ids 0..n-1 in order of first appearance in the file (by line, u before v on a
// line), whatever the number of ranks. The names are spread over the ranks by a hash of the
// name, so no rank holds more than its share of them (n = 10^8 names fit as the entries do).
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/graph/text_graph.hpp"

namespace lsgl {

// The numbering: n and the names of this rank's block of ids (lsgl::Partition(n, ranks)).
struct Renumbering {
  std::int64_t n = 0;
  std::vector<std::string> names;  // names[i]: the name of node Partition(n).begin(rank) + i
};

// Collective. `table` holds the names this rank met (numbered locally; table.first_block: the
// block of the file that holds each name's first line, blocks being in file order and each
// parsed by one rank) and `entries` their local numbers. Replaces those by the global ids and
// returns the numbering.
Renumbering renumber_names(MPI_Comm comm, const NameTable& table,
                           std::vector<DirectedEntry>& entries);

// Local. Where the names of the nodes of an output `path` go: PATH.ids.
std::string node_ids_path(const std::string& path);

// Collective. Writes `names` (this rank's block, as Renumbering::names) to `path`, one per line
// in id order (line i + 1: the name of node i), atomically and in parallel.
void write_node_names(MPI_Comm comm, const std::string& path,
                      const std::vector<std::string>& names);

}  // namespace lsgl
