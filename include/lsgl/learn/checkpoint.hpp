#pragma once
// Checkpoints of `lsgl learn`: the allowed edges with their distances (so a restart does not redo
// the neighbour search), the iteration's state, and a key describing the data and the
// parameters, so that a checkpoint of other data or other parameters is refused. Written
// collectively with parallel HDF5 to a unique temporary name, then renamed; the previous checkpoint
// is kept as FILE.prev. Readable on any number of ranks.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/graph/edgeset.hpp"
#include "lsgl/learn/solver.hpp"

namespace lsgl {

// What a run must match to continue from a checkpoint, and what it reports about itself.
struct CheckpointInfo {
  std::string key;           // data fingerprint and problem parameters, compared on resume
  double theta = 0.0;        // distances are stored unscaled; the theta being solved
  double theta_eq18 = 0.0;   // [KP19] eq. 18's theta before any degree correction (0: unknown)
  double recall = -1.0;      // candidate recall estimated by the original run
};

struct LoadedCheckpoint {
  CheckpointInfo info;
  EdgeSet edges;
  SolverState state;
};

// Collective. Writes `path` (through write_atomically; an existing path becomes path.prev).
void write_checkpoint(const std::string& path, const EdgeSet& edges, const SolverState& state,
                      const CheckpointInfo& info);

// Collective. Reads a checkpoint onto this communicator's ranks (any number). Throws
// CollectiveError for a missing, truncated or foreign file.
LoadedCheckpoint read_checkpoint(MPI_Comm comm, const std::string& path);

}  // namespace lsgl
