// Node labels: reading, length check, the global list of classes.
#include "lsgl/eval/labels.hpp"

#include <algorithm>

#include "lsgl/io/dataset.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

NodeLabels make_node_labels(MPI_Comm comm, const std::vector<std::int64_t>& values,
                            int max_classes) {
  const std::string too_many =
      "more than " + std::to_string(max_classes) + " distinct labels (see --max-classes)";
  std::vector<std::int64_t> mine;
  for (std::int64_t v : values)
    if (v >= 0) mine.push_back(v);
  std::sort(mine.begin(), mine.end());
  mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
  collective_check(comm, static_cast<std::int64_t>(mine.size()) <= max_classes, too_many);
  std::vector<std::int64_t> all = allgather_items(comm, mine);
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  collective_check(comm, static_cast<std::int64_t>(all.size()) <= max_classes, too_many);
  NodeLabels l;
  l.classes = std::move(all);
  l.index.resize(values.size());
  for (std::size_t r = 0; r < values.size(); ++r) {
    l.index[r] = values[r] < 0 ? -1
                               : static_cast<std::int32_t>(
                                     std::lower_bound(l.classes.begin(), l.classes.end(),
                                                      values[r]) - l.classes.begin());
    l.unlabelled += values[r] < 0;
  }
  l.unlabelled = allreduce_sum(comm, l.unlabelled);
  return l;
}

NodeLabels read_node_labels(MPI_Comm comm, const std::string& path, const std::string& dataset,
                            std::int64_t n, std::int64_t begin, std::int64_t count,
                            int max_classes) {
  const std::int64_t len = labels_length(comm, path, dataset);
  collective_check(comm, len == n,
                   "labels '" + path + "' hold " + std::to_string(len) +
                       " entries but the graph has " + std::to_string(n) + " nodes");
  return make_node_labels(comm, read_labels(comm, path, dataset, begin, count), max_classes);
}

}  // namespace lsgl
