#pragma once
// HDF5 files of `lsgl hash`. Every function is collective.
//
// Model file (lsgl hash train), group /hash, attribute format = "lsgl-hash-model":
//   /hash/P        dim x bits float64, the projection: h(x) = sgn(P^T (phi(x) - mean))
//   /hash/mean     dim float64, the training mean of phi
//   /hash/anchors  m x d float64 (rbf features only), with attribute sigma
//   /hash/codes    n x ceil(bits/8) uint8, h(x) of the training samples (the database)
//   /hash/labels   n int64, their labels
//   /hash/objective  the training loss after each alternation
// Codes file (lsgl hash encode), attribute format = "lsgl-hash-codes": /hash/codes,
// /hash/labels (when labels were given) and /hash/rows (the input rows encoded, int64).
// Attributes of /hash in both: bits, loss, solver, features and the times.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/hash/train.hpp"
#include "lsgl/io/attributes.hpp"

namespace lsgl::hash {

// This rank's rows of a codes dataset, with their labels and global row numbers.
struct CodeBlock {
  std::int64_t n = 0;       // rows in the file
  std::int64_t begin = 0;   // first row held here
  int bits = 0;
  std::vector<std::uint8_t> codes;   // packed
  bool has_labels = false;
  std::vector<std::int64_t> labels;  // this rank's labels (when has_labels)
  std::vector<std::int64_t> rows;    // input row of each code (codes files; else begin + i)
  Attributes attributes;             // the numeric and string attributes of /hash
  std::int64_t local() const { return static_cast<std::int64_t>(codes.size()) / ((bits + 7) / 8); }
};

// Writes, to a temporary name renamed on success: the model, the database block (global rows
// [block.begin, ...) of block.n) and `attributes` on /hash. Every rank passes the same model.
// Collective. A NaN or infinite value in the model, the objective or an attribute is refused on
// every rank before anything is written (check_finite_values).
void write_model(MPI_Comm comm, const std::string& path, const Model& m, const CodeBlock& block,
                 const std::vector<double>& objective, const Attributes& attributes);

// Collective. A 16-hex-digit digest (FNV-1a) of what defines the model's codes: bits, loss,
// features, sigma, P, the mean and the anchors, computed on rank 0. Codes files record the
// digest of the model that encoded them ("model_digest"), so `hash eval` can refuse codes of
// different models.
std::string model_digest(MPI_Comm comm, const Model& m);

// Collective. Reads a model file; a file that is not one, or whose bits are not in [1, 1024],
// gets a clear CollectiveError.
Model read_model(MPI_Comm comm, const std::string& path);

// Collective. Writes a codes file (temporary name, renamed on success); a non-finite attribute
// is refused on every rank first.
void write_codes(MPI_Comm comm, const std::string& path, const CodeBlock& block,
                 const Attributes& attributes);

// Reads the codes (a model file or a codes file): all rows on every rank (all = true) or this
// rank's block of the row partition. Throws CollectiveError when the file holds neither.
CodeBlock read_codes(MPI_Comm comm, const std::string& path, bool all);

}  // namespace lsgl::hash
