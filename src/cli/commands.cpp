#include "lsgl/cli/commands.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "commands_impl.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/version.hpp"
#include "options.hpp"

namespace lsgl::cli {

namespace {

const char* kUsage =
    " - large-scale graph learning from smooth signals\n"
    "\n"
    "usage: [mpirun -n P] lsgl <command> [options] [PETSc options]\n"
    "\n"
    "commands:\n"
    "  learn      learn a sparse weighted graph from a data matrix (log model, A-NN support)\n"
    "  generate   write a synthetic data set or graph to HDF5 (blobs, manifold, powerlaw-graph)\n"
    "  theta      print the theta that gives an average degree k, and its interval\n"
    "  densest    find a dense k-node subgraph (DPCD and baselines)\n"
    "  eval       measure a graph: components, label propagation, class connectivity, diameter,\n"
    "             spectral embedding\n"
    "  hash       binary hash codes for retrieval: train (SDH or ITQ loss, DPCD or the\n"
    "             baselines' solvers), encode, eval (MAP, Precision@500)\n"
    "  convert    write a graph as Matrix Market, a weighted edge list or scipy's .npz (for R,\n"
    "             Matlab, scipy, NetworkX, igraph), or an edge list as lsgl's HDF5 graph\n"
    "  collect    gather the attributes of a sweep's graph files into one CSV table, listing\n"
    "             failed and missing tasks\n"
    "\n"
    "'lsgl <command> --help' explains each command's options.\n";

}  // namespace

int dispatch(MPI_Comm comm, int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  if (command.empty() || command == "--help" || command == "help") {
    if (comm_rank(comm) == 0) std::printf("lsgl %s%s", version(), kUsage);
    return command.empty() ? 1 : 0;
  }
  if (command == "--version") {
    if (comm_rank(comm) == 0) std::printf("lsgl %s (%s)\n", version(), git_commit());
    return 0;
  }
  const std::vector<std::string> args(argv + 2, argv + argc);
  const std::string command_line = join_command_line(argc, argv);
  if (command == "learn") return learn_command(comm, args, command_line);
  if (command == "generate") return generate_command(comm, args);
  if (command == "theta") return theta_command(comm, args);
  if (command == "densest") return densest_command(comm, args, command_line);
  if (command == "eval") return eval_command(comm, args, command_line);
  if (command == "collect") return collect_command(comm, args);
  if (command == "convert") return convert_command(comm, args, command_line);
  if (command == "hash") return hash_command(comm, args, command_line);
  collective_check(comm, false, "unknown command '" + command + "' (try 'lsgl --help')");
  return 1;
}

}  // namespace lsgl::cli
