#pragma once
// The concrete models of include/lsgl/learn/model.hpp, one file each. Collective: each checks
// its options (CollectiveError on every rank).
#include <memory>

#include "lsgl/learn/model.hpp"

namespace lsgl {

std::unique_ptr<Model> make_log_model(MPI_Comm comm, const LearnOptions& o, Monitor& monitor);
std::unique_ptr<Model> make_l2_model(MPI_Comm comm, const LearnOptions& o, Monitor& monitor);
std::unique_ptr<Model> make_knn_model(MPI_Comm comm, const LearnOptions& o, Monitor& monitor);
// hard or soft (o.model)
std::unique_ptr<Model> make_daitch_model(MPI_Comm comm, const LearnOptions& o, Monitor& monitor);

}  // namespace lsgl
