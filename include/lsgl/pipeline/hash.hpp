#pragma once
// `lsgl hash train | encode | eval`: binary codes learned with DPCD (or the baselines' solvers)
// and judged by Hamming ranking. The phases and the summary lines go to the caller's Monitor.
// Every run_* function is collective and throws CollectiveError on bad input.
#include <mpi.h>

#include <cstdint>
#include <string>

#include "lsgl/hash/retrieval.hpp"
#include "lsgl/hash/train.hpp"
#include "lsgl/io/metric.hpp"
#include "lsgl/util/monitor.hpp"

namespace lsgl {

struct HashTrainOptions {
  std::string input, dataset = "/X";
  DataFormat input_format = DataFormat::kAuto;  // --input-format (auto: from the name)
  Metric metric = Metric::kEuclidean;  // cosine: rows scaled to unit norm (stored in the model)
  std::string labels, labels_dataset = "/labels";  // required for --loss sdh
  std::string output;
  hash::TrainOptions train;
  std::string command_line, configuration;
};

struct HashTrainSummary {
  std::int64_t n = 0, d = 0, dim = 0;
  int classes = 0;
  hash::TrainReport report;
  double t_read = 0, t_encode = 0, t_write = 0, t_total = 0;
};

HashTrainSummary run_hash_train(MPI_Comm comm, const HashTrainOptions& o,
                                Monitor& monitor = null_monitor());

struct HashEncodeOptions {
  std::string model;
  std::string input, dataset = "/X";
  DataFormat input_format = DataFormat::kAuto;
  std::string labels, labels_dataset = "/labels";
  std::int64_t per_class = 0;  // > 0: encode only this many rows per label (seeded); needs labels
  std::uint64_t seed = 1;
  std::string output;
  std::string command_line, configuration;
};

struct HashEncodeSummary {
  std::int64_t rows = 0;       // rows encoded
  std::int64_t short_classes = 0;  // labels with fewer rows than per_class (all taken)
  double t_encode = 0, t_total = 0;
};

// Collective. Encodes the rows of --input with the model (after the model's --metric, an
// attribute of its file: euclidean when absent).
HashEncodeSummary run_hash_encode(MPI_Comm comm, const HashEncodeOptions& o,
                                  Monitor& monitor = null_monitor());

struct HashEvalOptions {
  std::string queries, database;
  std::int64_t top = 500;  // Precision@top
  std::string json;
};

struct HashEvalSummary {
  hash::RetrievalScore score;
  int bits = 0;
  std::int64_t database = 0;
  double seconds = 0;
};

HashEvalSummary run_hash_eval(MPI_Comm comm, const HashEvalOptions& o,
                              Monitor& monitor = null_monitor());

}  // namespace lsgl
