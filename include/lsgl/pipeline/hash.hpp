#pragma once
// `lsgl hash train | encode | eval`: binary codes learned with DPCD (or the baselines' solvers)
// and judged by Hamming ranking. The phases and the summary lines go to the caller's Monitor.
// Every run_* function is collective and throws CollectiveError on bad input.
#include <mpi.h>

#include <cstdint>
#include <string>

#include "lsgl/hash/model_io.hpp"
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

// What `hash train` writes to its model file (hash/model_io.hpp), held in memory: the model, the
// training set's codes (this rank's sample block, hash/chunked.hpp), the loss after each
// alternation and the attributes of /hash.
struct HashTrained {
  hash::Model model;
  Metric metric = Metric::kEuclidean;  // applied to rows before encoding
  hash::CodeBlock database;
  std::vector<double> objective;
  Attributes attributes;
};

// Collective. run_hash_train on rows held in memory (each rank its lsgl::Partition block, float32
// row-major) with the label of each local row (null: none), returning the model in `out` instead
// of writing it (o.input, o.labels and o.output are not read). Every check of run_hash_train
// applies, and NaN or Inf in the rows throws CollectiveError.
HashTrainSummary hash_train_rows(MPI_Comm comm, const HashTrainOptions& o, LocalRows rows,
                                 const std::vector<std::int64_t>* labels, HashTrained& out,
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

// Collective. Writes `t` to `path` (HDF5, through a temporary name) as `hash train` writes its
// model file; reads it back as read_hash_model.
void write_hash_model(MPI_Comm comm, const std::string& path, const HashTrained& t);
HashTrained read_hash_model(MPI_Comm comm, const std::string& path);

// Collective. The packed codes of this rank's rows (local rows x ceil(bits / 8) uint8, bit k in bit
// k % 8 of byte k / 8) after the model's metric, as `hash encode` writes them. Throws
// CollectiveError when the number of columns is not the model's or a value is NaN or Inf.
std::vector<std::uint8_t> encode_rows(MPI_Comm comm, const HashTrained& t, LocalRows rows);

// Collective. MAP and Precision@top of Hamming ranking (hash/retrieval.hpp), as run_hash_eval
// computes them: `queries` this rank's block of the query codes, `database` all database codes
// on every rank, both with labels. Throws CollectiveError when the code lengths differ or labels
// are missing.
HashEvalSummary evaluate_codes(MPI_Comm comm, const hash::CodeBlock& queries,
                               const hash::CodeBlock& database, std::int64_t top);

}  // namespace lsgl
