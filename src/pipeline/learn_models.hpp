#pragma once
// Private to src/pipeline: the models of `lsgl learn` by --model, each with the options it owns
// and the parameters it is given (learn/models.hpp).
#include <memory>
#include <string>

#include "lsgl/learn/model.hpp"
#include "lsgl/pipeline/learn.hpp"

namespace lsgl {

// Collective. The model o.model with its context and its own parameters from o. An option set
// that belongs to other models only (e.g. --sigma without --model knn) raises CollectiveError on
// every rank, as do the model's own checks.
std::unique_ptr<Model> make_model(MPI_Comm comm, const LearnOptions& o, Monitor& monitor);

// Local. What a log model's checkpoint must match besides the data: every option that changes
// the learned graph (not tol, max-iter, prune, threads or the output options).
std::string checkpoint_key(const LearnOptions& o);

}  // namespace lsgl
