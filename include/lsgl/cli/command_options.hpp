#pragma once
// The options of `lsgl eval`, `lsgl densest` and `lsgl hash train` from command-line words,
// parsed by each command's own option table and checks: the Python module turns its keyword
// arguments into these words, so both take the same names, defaults and messages.
#include <mpi.h>

#include <string>
#include <vector>

#include "lsgl/pipeline/densest.hpp"
#include "lsgl/pipeline/eval.hpp"
#include "lsgl/pipeline/hash.hpp"

namespace lsgl::cli {

// Collective. Each throws CollectiveError on every rank for an unknown option, a bad value, a
// stray word or --help (there is no help to print).
EvalOptions eval_options(MPI_Comm comm, const std::vector<std::string>& args);
DensestOptions densest_options(MPI_Comm comm, const std::vector<std::string>& args);
HashTrainOptions hash_train_options(MPI_Comm comm, const std::vector<std::string>& args);

// Collective. CollectiveError on every rank when args holds --help or --config (the Python
// module's keywords are the options themselves).
void refuse_help_and_config(MPI_Comm comm, const std::vector<std::string>& args);

}  // namespace lsgl::cli
