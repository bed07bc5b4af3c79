#pragma once
// Reading a data matrix (n rows = nodes, d columns = features), each rank its contiguous block
// of rows (lsgl::Partition). Formats: HDF5 (float32/float64 2-D dataset), NumPy .npy (float32 or
// float64, C order, 2-D), IDX / IDX.gz (the MNIST family; unsigned-byte pixels scaled to [0,1]),
// CSV/TSV text (lsgl/io/text_matrix.hpp).
// .npy and IDX files are read through zlib, so gzip-compressed copies (.gz) work too.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/util/names.hpp"

namespace lsgl {

// This rank's block of rows of an n x d matrix, row-major float32: (end - begin) * d values,
// either owned (a std::vector) or borrowed, a view of a caller's buffer (the Python module passes
// a C-contiguous float32 NumPy array so, without copying it). A borrowed buffer must outlive this
// object and its copies and must not change meanwhile; copying borrowed rows copies the view.
// Reading (data, row) never copies. Copy-on-write: values() is the only access that can modify or
// replace the rows, and on borrowed rows it first copies them into an owned vector, so code that
// modifies rows in place (apply_metric's cosine normalisation) copies them only then and never
// writes to the caller's buffer.
class LocalRows {
 public:
  std::int64_t n = 0;      // global number of rows
  std::int64_t d = 0;      // number of columns
  std::int64_t begin = 0;  // global index of the first local row

  const float* data() const { return view_ ? view_ : owned_.data(); }
  std::size_t size() const { return view_ ? view_size_ : owned_.size(); }  // number of values
  std::int64_t local_rows() const { return d > 0 ? static_cast<std::int64_t>(size()) / d : 0; }
  const float* row(std::int64_t local) const { return data() + local * d; }
  bool borrowed() const { return view_ != nullptr; }

  // The owned values, to fill, modify or replace; borrowed rows are copied into them first.
  std::vector<float>& values() {
    if (view_) owned_.assign(view_, view_ + view_size_);
    view_ = nullptr;
    view_size_ = 0;
    return owned_;
  }
  // Borrows the `count` values at `values` (nullptr or count 0: no rows, owned and empty).
  void borrow(const float* values, std::size_t count) {
    owned_ = std::vector<float>();
    view_ = count > 0 ? values : nullptr;
    view_size_ = count > 0 ? count : 0;
  }

 private:
  const float* view_ = nullptr;
  std::size_t view_size_ = 0;
  std::vector<float> owned_;
};

// Collective. A 64-bit fingerprint of the whole matrix (n, d and every value), the same on any
// number of ranks: the sum over rows of a hash of (row index, row bytes), modulo 2^64.
std::uint64_t fingerprint(MPI_Comm comm, const LocalRows& data);

// kAuto: from the file's name (guess_format).
enum class DataFormat { kAuto, kHdf5, kNpy, kIdx, kCsv };
inline constexpr Named<DataFormat> kDataFormatNames[] = {{DataFormat::kAuto, "auto"},
                                                         {DataFormat::kHdf5, "hdf5"},
                                                         {DataFormat::kNpy, "npy"},
                                                         {DataFormat::kIdx, "idx"},
                                                         {DataFormat::kCsv, "csv"}};
constexpr const auto& names(DataFormat) { return kDataFormatNames; }

// Format from the file name: .h5/.hdf5/.he5/.h5ad (AnnData) -> hdf5, .npy -> npy, .csv/.tsv/.txt
// -> csv (text_matrix.hpp: CSV, TSV or blank-separated), anything containing "idx" or "-ubyte"
// -> idx (all but HDF5 optionally .gz). Throws std::runtime_error for unknown names (call inside
// lsgl::collectively or on every rank).
DataFormat guess_format(const std::string& path);

// Collective. Reads this rank's rows in `format` (kAuto: guess_format). `dataset` is the HDF5
// dataset path (ignored for other formats). A --dataset that is missing or a group (the sparse
// /X of an AnnData .h5ad file) is refused with the list of the file's 2-D float datasets (e.g.
// /obsm/X_pca). Every failure (missing file or dataset, wrong rank or type, d = 0, n = 0,
// NaN/Inf values on any rank) throws CollectiveError on every rank with a one-line message (rows
// and columns in it are 0-based; a text file names its 1-based line instead). An IDX file of
// shape n x d1 x d2 x ... gives d = d1 * d2 * ... (images are flattened row-major).
LocalRows read_dataset(MPI_Comm comm, const std::string& path, const std::string& dataset,
                       DataFormat format = DataFormat::kAuto);

// Collective. Throws CollectiveError on every rank when a value of any rank's rows is NaN or
// infinite: "input contains NaN or Inf values (first at row R, column C) in <source>" (0-based).
// read_dataset checks its rows so; callers that hold rows in memory (the Python module) too.
void check_finite_rows(MPI_Comm comm, const LocalRows& rows, const std::string& source);

// Labels: a 1-D integer array. IDX (unsigned byte), .npy ('<i8', '<i4' or '|u1') or an HDF5
// 1-D integer dataset `dataset` (ignored for the other formats).

// Collective. Number of labels in the file (throws CollectiveError on every rank on failure).
std::int64_t labels_length(MPI_Comm comm, const std::string& path, const std::string& dataset);

// Collective. Labels of global rows [begin, begin + count); each rank passes its own range.
// Throws CollectiveError on every rank on failure, including a range past the end of the file.
std::vector<std::int64_t> read_labels(MPI_Comm comm, const std::string& path,
                                      const std::string& dataset, std::int64_t begin,
                                      std::int64_t count);

}  // namespace lsgl
