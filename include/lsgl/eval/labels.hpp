#pragma once
// Node labels (classes) for the label-based eval measures: each rank holds the labels of its
// rows and every rank knows the sorted list of distinct label values (at most max_classes).
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lsgl {

struct NodeLabels {
  std::vector<std::int64_t> classes;  // sorted distinct label values over all nodes
  std::vector<std::int32_t> index;    // per local row: position of its label in `classes`, or
                                      // -1: unlabelled (a negative value, e.g. -1)
  std::int64_t unlabelled = 0;        // nodes with a negative label, all ranks
  int num_classes() const { return static_cast<int>(classes.size()); }
};

// Collective. From the label values of this rank's rows; a negative value marks an unlabelled
// node (the scikit-learn and PyG convention), not a class. Throws CollectiveError on every rank
// when there are more than max_classes distinct values.
NodeLabels make_node_labels(MPI_Comm comm, const std::vector<std::int64_t>& values,
                            int max_classes);

// Collective. Reads the labels of rows [begin, begin + count) from an IDX, .npy or HDF5 file
// (lsgl::read_labels; `dataset` for HDF5). Throws CollectiveError on every rank when the file
// cannot be read or does not hold exactly n labels.
NodeLabels read_node_labels(MPI_Comm comm, const std::string& path, const std::string& dataset,
                            std::int64_t n, std::int64_t begin, std::int64_t count,
                            int max_classes);

}  // namespace lsgl
