// Tests of lsgl/io at the current number of ranks: the parallel HDF5 helpers, the dataset and
// label readers (.npy, IDX, IDX.gz, HDF5), their collective errors, and the generators (whose
// output must not depend on the number of ranks). Input files are written by rank 0 into a
// temporary directory shared by all ranks.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "lsgl/cli/choices.hpp"
#include "lsgl/io/attributes.hpp"
#include "lsgl/io/dataset.hpp"
#include "lsgl/io/metric.hpp"
#include "lsgl/io/h5.hpp"
#include "lsgl/synth/generate.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "support.hpp"

namespace {

using lsgl::CollectiveError;
using lsgl::LocalRows;
using lsgl::Partition;
using std::int64_t;

const MPI_Comm kWorld = MPI_COMM_WORLD;

int rank() { return lsgl::comm_rank(kWorld); }
int nranks() { return lsgl::comm_size(kWorld); }

// Runs fn on rank 0, then waits for every rank (so files written by fn are visible to all).
void on_root(const std::function<void()>& fn) {
  if (rank() == 0) fn();
  MPI_Barrier(kWorld);
}

// The message of the CollectiveError fn throws; "" when it returns normally.
std::string collective_error(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const CollectiveError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("unexpected non-collective exception: ") + e.what();
  }
  return "";
}

// Every rank must throw CollectiveError whose message contains `part`.
#define EXPECT_COLLECTIVE_ERROR(statement, part)                                            \
  do {                                                                                      \
    const std::string message_ = collective_error([&] { statement; });                      \
    EXPECT_NE(message_.find(part), std::string::npos)                                       \
        << "expected a CollectiveError containing \"" << (part) << "\", got \"" << message_ \
        << "\"";                                                                            \
  } while (0)

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void write_gz(const std::string& path, const std::string& bytes) {
  gzFile g = gzopen(path.c_str(), "wb");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(gzwrite(g, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  EXPECT_EQ(gzclose(g), Z_OK);
}

template <class T>
std::string as_bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// A .npy file as numpy writes it (header padded so that the data starts at a multiple of 64).
std::string npy_bytes(const std::string& descr, const std::vector<int64_t>& shape,
                      const std::string& data, int version = 1, bool fortran = false) {
  std::string shp = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) shp += (i ? ", " : "") + std::to_string(shape[i]);
  shp += shape.size() == 1 ? ",)" : ")";
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                     ", 'shape': " + shp + ", }";
  const std::size_t prefix = version == 1 ? 10 : 12;
  dict += std::string((64 - (prefix + dict.size() + 1) % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += static_cast<char>(version);
  out += '\0';
  const std::size_t len = dict.size();
  for (std::size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
  return out + dict + data;
}

// An IDX file: magic 0 0 type ndim, big-endian dims, data.
std::string idx_bytes(int type, const std::vector<std::uint32_t>& dims, const std::string& data) {
  std::string out = {0, 0, static_cast<char>(type), static_cast<char>(dims.size())};
  for (std::uint32_t v : dims) {
    for (int s = 24; s >= 0; s -= 8) out += static_cast<char>((v >> s) & 0xff);
  }
  return out + data;
}

// `got` must be exactly this rank's block of the n x d row-major matrix `all`.
void expect_my_rows(const LocalRows& got, const std::vector<float>& all, int64_t n, int64_t d) {
  const Partition part(n, nranks());
  const int64_t b = part.begin(rank()), e = part.end(rank());
  EXPECT_EQ(got.n, n);
  EXPECT_EQ(got.d, d);
  EXPECT_EQ(got.begin, b);
  EXPECT_EQ(got.local_rows(), e - b);
  EXPECT_EQ(lsgl::test::values_of(got),
            std::vector<float>(all.begin() + b * d, all.begin() + e * d));
}

// This rank's block of `all`, which has n entries.
template <class T>
std::vector<T> my_block(const std::vector<T>& all) {
  const Partition part(static_cast<int64_t>(all.size()), nranks());
  return std::vector<T>(all.begin() + part.begin(rank()), all.begin() + part.end(rank()));
}

class Io : public testing::Test {
 protected:
  // A fresh directory under /tmp, chosen on rank 0 and shared with every rank.
  static void SetUpTestSuite() {
    char name[] = "/tmp/lsgl_test_io_XXXXXX";
    int len = 0;
    if (rank() == 0) {
      if (mkdtemp(name) == nullptr) MPI_Abort(kWorld, 1);
      len = static_cast<int>(std::string(name).size());
    }
    MPI_Bcast(&len, 1, MPI_INT, 0, kWorld);
    MPI_Bcast(name, len, MPI_CHAR, 0, kWorld);
    dir_ = std::string(name, static_cast<std::size_t>(len));
  }
  static void TearDownTestSuite() {
    on_root([] { std::filesystem::remove_all(dir_); });
  }

  static std::string path(const std::string& name) { return dir_ + "/" + name; }

  static std::string dir_;
};
std::string Io::dir_;

TEST_F(Io, GuessFormat) {
  using lsgl::DataFormat;
  using lsgl::guess_format;
  EXPECT_EQ(guess_format("a/b.h5"), DataFormat::kHdf5);
  EXPECT_EQ(guess_format("B.HDF5"), DataFormat::kHdf5);
  EXPECT_EQ(guess_format("c.he5"), DataFormat::kHdf5);
  EXPECT_EQ(guess_format("cells.h5ad"), DataFormat::kHdf5);
  EXPECT_EQ(guess_format("x.npy"), DataFormat::kNpy);
  EXPECT_EQ(guess_format("x.npy.gz"), DataFormat::kNpy);
  EXPECT_EQ(guess_format("/data/train-images-idx3-ubyte"), DataFormat::kIdx);
  EXPECT_EQ(guess_format("train-images-idx3-ubyte.gz"), DataFormat::kIdx);
  EXPECT_EQ(guess_format("t10k-labels.idx1-ubyte"), DataFormat::kIdx);
  EXPECT_EQ(guess_format("x.csv"), DataFormat::kCsv);
  EXPECT_EQ(guess_format("idx/x.csv"), DataFormat::kCsv);  // only the file name counts
  EXPECT_THROW(guess_format("x.parquet"), std::runtime_error);
}

TEST_F(Io, NpyFloat32) {
  // n = 2 leaves a rank without rows at 3 ranks; the version 3.0 header has a 4-byte length.
  for (const int64_t n : {7, 2}) {
    const int64_t d = 3;
    std::vector<float> all(static_cast<std::size_t>(n * d));
    for (int64_t i = 0; i < n * d; ++i) all[i] = static_cast<float>(i / d * 10 + i % d) + 0.25f;
    const std::string file = path("f4_" + std::to_string(n) + ".npy");
    on_root([&] { write_bytes(file, npy_bytes("<f4", {n, d}, as_bytes(all), n == 7 ? 1 : 3)); });
    expect_my_rows(lsgl::read_dataset(kWorld, file, "ignored"), all, n, d);
  }
}

TEST_F(Io, NpyFloat64) {
  const int64_t n = 10, d = 4;
  std::vector<double> all(n * d);
  std::vector<float> expected(n * d);
  for (int64_t i = 0; i < n * d; ++i) {
    all[i] = 0.1 * static_cast<double>(i) - 1.7;
    expected[i] = static_cast<float>(all[i]);
  }
  const std::string file = path("f8.npy");
  on_root([&] { write_bytes(file, npy_bytes("<f8", {n, d}, as_bytes(all), 2)); });
  expect_my_rows(lsgl::read_dataset(kWorld, file, ""), expected, n, d);
}

TEST_F(Io, IdxPlainAndGzip) {
  const std::uint32_t n = 5, h = 2, w = 3;
  std::vector<std::uint8_t> pixels(n * h * w);
  std::vector<float> expected(pixels.size());
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    pixels[i] = static_cast<std::uint8_t>(i == 4 ? 255 : (i * 37 + 11) % 256);
    expected[i] = static_cast<float>(pixels[i]) / 255.0f;
  }
  const std::string images = idx_bytes(0x08, {n, h, w}, as_bytes(pixels));
  const std::vector<std::uint8_t> labels = {3, 0, 9, 9, 1};
  on_root([&] {
    write_bytes(path("imgs-idx3-ubyte"), images);
    write_gz(path("imgs-idx3-ubyte.gz"), images);
    write_gz(path("labels-idx1-ubyte.gz"), idx_bytes(0x08, {n}, as_bytes(labels)));
  });
  expect_my_rows(lsgl::read_dataset(kWorld, path("imgs-idx3-ubyte"), ""), expected, n, h * w);
  expect_my_rows(lsgl::read_dataset(kWorld, path("imgs-idx3-ubyte.gz"), ""), expected, n, h * w);

  const std::string lab = path("labels-idx1-ubyte.gz");
  EXPECT_EQ(lsgl::labels_length(kWorld, lab, ""), 5);
  const Partition part(n, nranks());
  const std::vector<int64_t> all_labels(labels.begin(), labels.end());
  EXPECT_EQ(lsgl::read_labels(kWorld, lab, "", part.begin(rank()), part.count(rank())),
            my_block(all_labels));
  EXPECT_EQ(lsgl::read_labels(kWorld, lab, "", 1, 3), std::vector<int64_t>({0, 9, 9}));
}

TEST_F(Io, NpyAndHdf5Labels) {
  const std::vector<int64_t> all = {4, 1, 0, 7, 7, 2, 5, 3};
  const auto n = static_cast<int64_t>(all.size());
  const std::vector<std::int32_t> i4(all.begin(), all.end());
  const std::vector<std::uint8_t> u1(all.begin(), all.end());
  on_root([&] {
    write_bytes(path("l8.npy"), npy_bytes("<i8", {n}, as_bytes(all)));
    write_bytes(path("l4.npy"), npy_bytes("<i4", {n}, as_bytes(i4)));
    write_bytes(path("l1.npy"), npy_bytes("|u1", {n}, as_bytes(u1)));
    write_bytes(path("lf.npy"), npy_bytes("<f4", {n}, std::string(4 * n, '\0')));
    write_bytes(path("l2d.npy"), npy_bytes("<i8", {n / 2, 2}, as_bytes(all)));
  });
  {
    lsgl::h5::File f = lsgl::h5::create(kWorld, path("labels.h5"));
    const Partition part(n, nranks());
    lsgl::h5::write_1d(f, "/y", my_block(i4), part.begin(rank()), n);
    lsgl::h5::write_1d(f, "/yf", my_block(std::vector<double>(all.begin(), all.end())),
                       part.begin(rank()), n);
    f.close();
  }
  const Partition part(n, nranks());
  for (const std::string name : {"l8.npy", "l4.npy", "l1.npy", "labels.h5"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(lsgl::labels_length(kWorld, path(name), "/y"), n);
    EXPECT_EQ(lsgl::read_labels(kWorld, path(name), "/y", part.begin(rank()), part.count(rank())),
              my_block(all));
    // Ranks may ask for different, overlapping ranges.
    const int64_t b = rank() % 3;
    EXPECT_EQ(lsgl::read_labels(kWorld, path(name), "/y", b, 4),
              std::vector<int64_t>(all.begin() + b, all.begin() + b + 4));
    EXPECT_COLLECTIVE_ERROR(lsgl::read_labels(kWorld, path(name), "/y", rank() == 0 ? n - 2 : 0, 3),
                            "cannot read labels [");
  }
  EXPECT_COLLECTIVE_ERROR(lsgl::labels_length(kWorld, path("lf.npy"), ""),
                          "labels must be '<i8', '<i4' or '|u1'");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_labels(kWorld, path("l2d.npy"), "", 0, 1),
                          "must hold a 1-D array of labels, got shape (4, 2)");
  EXPECT_COLLECTIVE_ERROR(lsgl::labels_length(kWorld, path("labels.h5"), "/yf"),
                          "must be a 1-D integer array of labels, got 1-D float64");
  EXPECT_COLLECTIVE_ERROR(lsgl::labels_length(kWorld, path("labels.h5"), "/nope"),
                          "dataset '/nope' in '" + path("labels.h5") + "' not found");
}

// An AnnData-like file: a sparse /X group (encoding-type csr_matrix) is refused with the dense
// datasets named; the embedding /obsm/X_pca is read (rows as written, on any number of ranks).
TEST_F(Io, AnnDataLayout) {
  namespace h5 = lsgl::h5;
  const int64_t n = 7, d = 3;
  const Partition part(n, nranks());
  std::vector<float> pca;
  for (int64_t i = 0; i < n * d; ++i) pca.push_back(0.25f * static_cast<float>(i) - 1.0f);
  const std::string file = path("cells.h5ad");
  {
    h5::File f = h5::create(kWorld, file);
    h5::ensure_group(f, "/X");
    h5::set_attr(f, "/X", "encoding-type", std::string("csr_matrix"));
    h5::write_1d(f, "/X/data", std::vector<float>(rank() == 0 ? 2 : 0, 1.0f), 0, 2);
    h5::write_2d(f, "/obsm/X_pca",
                 std::vector<float>(pca.begin() + d * part.begin(rank()),
                                    pca.begin() + d * part.end(rank())),
                 part.begin(rank()), n, d);
    h5::write_2d(f, "/obsm/counts", std::vector<std::int32_t>(d * part.count(rank()), 1),
                 part.begin(rank()), n, d);
    h5::ensure_group(f, "/uns");
  }
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, file, "/X"),
                          "dataset '/X' in '" + file +
                              "' is a sparse matrix (AnnData 'csr_matrix' group), which lsgl "
                              "does not read; its dense 2-D float datasets: /obsm/X_pca (7 x 3) "
                              "(choose one with --dataset)");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, file, "/uns"),
                          "dataset '/uns' in '" + file + "' is a group, not a dataset");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, file, "/obsm/X_umap"),
                          "dataset '/obsm/X_umap' in '" + file + "' not found; its dense");
  const lsgl::LocalRows r = lsgl::read_dataset(kWorld, file, "/obsm/X_pca");
  EXPECT_EQ(r.n, n);
  EXPECT_EQ(r.d, d);
  EXPECT_EQ(r.begin, part.begin(rank()));
  EXPECT_EQ(lsgl::test::values_of(r), std::vector<float>(pca.begin() + d * part.begin(rank()),
                                                         pca.begin() + d * part.end(rank())));
}

// --metric cosine: each row divided by its norm (computed here in double); a zero row (on the
// last rank) is refused on every rank with its global index; euclidean leaves the rows.
TEST_F(Io, CosineMetricNormalisesRows) {
  const int64_t n = 10, d = 3;
  const Partition part(n, nranks());
  lsgl::LocalRows r;
  r.n = n;
  r.d = d;
  r.begin = part.begin(rank());
  for (int64_t g = r.begin; g < part.end(rank()); ++g)
    for (int64_t j = 0; j < d; ++j)
      r.values().push_back(static_cast<float>((g + 1) * (j + 2) % 7) - 2.5f);
  lsgl::LocalRows e = r;
  lsgl::apply_metric(kWorld, e, lsgl::Metric::kEuclidean);
  EXPECT_EQ(e.values(), r.values());
  lsgl::LocalRows c = r;
  lsgl::apply_metric(kWorld, c, lsgl::Metric::kCosine);
  for (int64_t i = 0; i < r.local_rows(); ++i) {
    double norm = 0;
    for (int64_t j = 0; j < d; ++j) norm += double(r.row(i)[j]) * r.row(i)[j];
    for (int64_t j = 0; j < d; ++j) EXPECT_NEAR(c.row(i)[j], r.row(i)[j] / std::sqrt(norm), 1e-7);
  }
  if (rank() == nranks() - 1) std::fill(r.values().end() - d, r.values().end(), 0.0f);
  EXPECT_COLLECTIVE_ERROR(lsgl::apply_metric(kWorld, r, lsgl::Metric::kCosine),
                          "--metric cosine: row 9 is all zeros");
  // An unknown metric is refused where --metric is parsed, with the one message for a choice.
  EXPECT_COLLECTIVE_ERROR(lsgl::collectively(kWorld,
                                             [] {
                                               lsgl::cli::parse_choice<lsgl::Metric>(
                                                   "metric", "manhattan");
                                             }),
                          "unknown --metric 'manhattan' (expected euclidean or cosine)");
}

// LocalRows copy-on-write: borrowed rows are read in the caller's buffer (copies of them too);
// --metric euclidean keeps them borrowed, cosine normalises an owned copy and leaves the buffer
// as it was; values() makes them owned, equal to the buffer.
TEST_F(Io, BorrowedRowsAreCopiedOnlyToBeModified) {
  const std::vector<float> buffer = {3, 4, 0, 0, 0, 2};
  lsgl::LocalRows r;
  r.n = 2;
  r.d = 3;
  r.borrow(buffer.data(), buffer.size());
  EXPECT_TRUE(r.borrowed());
  EXPECT_EQ(r.data(), buffer.data());
  EXPECT_EQ(r.local_rows(), 2);
  EXPECT_EQ(r.row(1), buffer.data() + 3);
  lsgl::apply_metric(MPI_COMM_SELF, r, lsgl::Metric::kEuclidean);
  EXPECT_EQ(r.data(), buffer.data());
  lsgl::LocalRows c = r;
  EXPECT_EQ(c.data(), buffer.data());
  lsgl::apply_metric(MPI_COMM_SELF, c, lsgl::Metric::kCosine);
  EXPECT_FALSE(c.borrowed());
  EXPECT_EQ(lsgl::test::values_of(c), std::vector<float>({0.6f, 0.8f, 0, 0, 0, 1}));
  EXPECT_EQ(buffer, std::vector<float>({3, 4, 0, 0, 0, 2}));
  EXPECT_EQ(r.data(), buffer.data());
  EXPECT_EQ(r.values(), buffer);
  EXPECT_FALSE(r.borrowed());
  EXPECT_NE(r.data(), buffer.data());
}

TEST_F(Io, Hdf5RoundTrip) {
  namespace h5 = lsgl::h5;
  const int64_t n = 11;
  const Partition part(n, nranks());
  const int64_t b = part.begin(rank()), e = part.end(rank());
  std::vector<int64_t> i8;
  std::vector<double> f8;
  std::vector<float> f4;
  std::vector<std::int32_t> i4;
  std::vector<std::uint8_t> u1;
  std::vector<double> m;  // n x 3
  std::vector<float> x;   // n x 4
  for (int64_t i = 0; i < n; ++i) {
    i8.push_back(1000000000000 + i);
    f8.push_back(0.1 * static_cast<double>(i));
    f4.push_back(0.5f * static_cast<float>(i) - 2.0f);
    i4.push_back(static_cast<std::int32_t>(-7 * i));
    u1.push_back(static_cast<std::uint8_t>(250 + i % 6));
    for (int j = 0; j < 3; ++j) m.push_back(static_cast<double>(i * 3 + j) + 0.5);
    for (int j = 0; j < 4; ++j) x.push_back(static_cast<float>(i) - 0.125f * static_cast<float>(j));
  }
  const std::string file = path("round.h5");
  {
    h5::File f = h5::create(kWorld, file);
    h5::write_1d(f, "/i8", my_block(i8), b, n);
    h5::write_1d(f, "/f8", my_block(f8), b, n);
    h5::write_1d(f, "/f4", my_block(f4), b, n);
    h5::write_1d(f, "/i4", my_block(i4), b, n);
    h5::write_1d(f, "/u1", my_block(u1), b, n);
    h5::ensure_group(f, "/group/sub");
    h5::ensure_group(f, "/group/sub");  // already there: no-op
    h5::write_2d(f, "/group/sub/M", std::vector<double>(m.begin() + 3 * b, m.begin() + 3 * e), b, n,
                 3);
    h5::write_2d(f, "/X", std::vector<float>(x.begin() + 4 * b, x.begin() + 4 * e), b, n, 4);
    h5::write_1d(f, "/deep/er/v", std::vector<int64_t>(rank() == 0 ? 2 : 0, 5), 0, 2);
    h5::write_1d(f, "/empty", std::vector<float>(), 0, 0);
    h5::set_attr(f, "/", "pi", 3.25);
    h5::set_attr(f, "/", "count", int64_t(-5));
    h5::set_attr(f, "/", "seed", std::uint64_t(18000000000000000000ULL));
    h5::set_attr(f, "/", "name", std::string("first"));
    h5::set_attr(f, "/", "name", std::string("hello world"));  // replaces
    h5::set_attr(f, "/", "empty", std::string());
    h5::set_attr(f, "/group/sub/M", "unit", std::string("m"));
    EXPECT_COLLECTIVE_ERROR(h5::write_1d(f, "/i8", my_block(i8), b, n), "cannot create dataset");
    EXPECT_COLLECTIVE_ERROR(h5::write_1d(f, "/bad", my_block(i8), b + 1, n), "write_1d");
    f.close();
    f.close();  // closing twice is harmless
  }

  const h5::File f = h5::open_read(kWorld, file);
  EXPECT_EQ(h5::length_1d(f, "/i8"), n);
  EXPECT_EQ(h5::length_1d(f, "/empty"), 0);
  EXPECT_TRUE(h5::read_1d<float>(f, "/empty", 0, 0).empty());
  EXPECT_EQ(h5::read_1d<int64_t>(f, "/i8", b, e - b), my_block(i8));
  EXPECT_EQ(h5::read_1d<double>(f, "/f8", 2, 7),
            std::vector<double>(f8.begin() + 2, f8.begin() + 9));
  EXPECT_EQ(h5::read_1d<float>(f, "/f4", 0, n), f4);
  EXPECT_EQ(h5::read_1d<std::int32_t>(f, "/i4", b, e - b), my_block(i4));
  EXPECT_EQ(h5::read_1d<std::uint8_t>(f, "/u1", 0, n), u1);
  EXPECT_EQ(h5::read_1d<int64_t>(f, "/deep/er/v", 0, 2), std::vector<int64_t>({5, 5}));
  EXPECT_EQ(h5::read_2d<double>(f, "/group/sub/M", 3, 4),
            std::vector<double>(m.begin() + 9, m.begin() + 21));
  EXPECT_EQ(h5::read_1d<double>(f, "/i4", 1, 1), std::vector<double>({-7.0}));  // int -> double

  const h5::DatasetInfo info = h5::dataset_info(f, "/group/sub/M");
  EXPECT_EQ(info.type_class, H5T_FLOAT);
  EXPECT_EQ(info.type_size, 8u);
  EXPECT_EQ(info.dims, std::vector<int64_t>({n, 3}));
  EXPECT_EQ(info.describe(), "2-D float64");
  EXPECT_EQ(h5::dataset_info(f, "/u1").describe(), "1-D uint8");

  EXPECT_EQ(h5::get_attr_double(f, "/", "pi"), 3.25);
  EXPECT_EQ(h5::get_attr_int(f, "/", "count"), -5);
  EXPECT_EQ(h5::get_attr_double(f, "/", "count"), -5.0);
  EXPECT_EQ(h5::get_attr_string(f, "/", "name"), "hello world");
  EXPECT_EQ(h5::get_attr_string(f, "/", "empty"), "");
  EXPECT_EQ(h5::get_attr_string(f, "/group/sub/M", "unit"), "m");

  EXPECT_COLLECTIVE_ERROR(h5::get_attr_int(f, "/", "nope"), "attribute 'nope' of '/' in '");
  EXPECT_COLLECTIVE_ERROR(h5::get_attr_int(f, "/", "pi"), "is not a single integer");
  EXPECT_COLLECTIVE_ERROR(h5::get_attr_string(f, "/", "pi"), "is not a string");
  EXPECT_COLLECTIVE_ERROR(h5::get_attr_int(f, "/nothere", "x"), "object '/nothere'");
  EXPECT_COLLECTIVE_ERROR(h5::read_1d<double>(f, "/missing", 0, 1),
                          "dataset '/missing' in '" + file + "' not found");
  EXPECT_COLLECTIVE_ERROR(h5::read_1d<double>(f, "/f8", rank() == nranks() - 1 ? 5 : 0, 7),
                          "cannot read rows [5, 12)");
  EXPECT_COLLECTIVE_ERROR(h5::read_1d<int64_t>(f, "/f8", 0, 1),
                          "is 1-D float64, expected a 1-D integer array");
  EXPECT_COLLECTIVE_ERROR(h5::length_1d(f, "/X"), "expected 1-D");
  EXPECT_COLLECTIVE_ERROR(h5::read_2d<float>(f, "/f4", 0, 1), "expected a 2-D numeric array");

  expect_my_rows(lsgl::read_dataset(kWorld, file, "/X"), x, n, 4);
  expect_my_rows(lsgl::read_dataset(kWorld, file, "/group/sub/M"),
                 std::vector<float>(m.begin(), m.end()), n, 3);
}

TEST_F(Io, Hdf5Errors) {
  const std::string raw = path("raw.h5");
  on_root([&] {
    // Written serially with the plain HDF5 API, as another tool would.
    const hid_t f = H5Fcreate(raw.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const auto add = [&](const char* name, hid_t type, std::vector<hsize_t> dims) {
      const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
      const hid_t d = H5Dcreate2(f, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      EXPECT_GE(d, 0) << name;
      H5Dclose(d);
      H5Sclose(space);
    };
    add("/cube", H5T_IEEE_F32LE, {2, 2, 2});
    add("/ints", H5T_STD_I32LE, {3, 2});
    add("/no_cols", H5T_IEEE_F32LE, {4, 0});
    add("/no_rows", H5T_IEEE_F64LE, {0, 3});
    // A variable-length string attribute, as h5py writes them.
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate2(f, "note", type, space, H5P_DEFAULT, H5P_DEFAULT);
    const char* text = "variable length";
    EXPECT_GE(H5Awrite(a, type, &text), 0);
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
    EXPECT_GE(H5Fclose(f), 0);
    write_bytes(path("garbage.h5"), "this is not an HDF5 file");
  });
  {
    const lsgl::h5::File f = lsgl::h5::open_read(kWorld, raw);
    EXPECT_EQ(lsgl::h5::get_attr_string(f, "/", "note"), "variable length");
  }
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("missing.h5"), "/X"),
                          "cannot open '" + path("missing.h5") + "': No such file");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("garbage.h5"), "/X"),
                          "cannot open '" + path("garbage.h5") + "': not an HDF5 file");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, raw, "/X"),
                          "dataset '/X' in '" + raw + "' not found");
  EXPECT_COLLECTIVE_ERROR(
      lsgl::read_dataset(kWorld, raw, "/cube"),
      "dataset '/cube' in '" + raw + "' must be a 2-D float32 or float64 array, got 3-D float32");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, raw, "/ints"), "got 2-D int32");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, raw, "/no_cols"), "no columns (d = 0)");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, raw, "/no_rows"), "no rows (n = 0)");
  EXPECT_COLLECTIVE_ERROR(lsgl::h5::create(kWorld, path("no/such/dir.h5")), "cannot create '");
}

TEST_F(Io, NpyErrors) {
  const int64_t n = 7, d = 3;
  std::vector<float> good(n * d, 1.0f);
  std::vector<float> nan_last = good, two_bad = good;
  nan_last[6 * d + 1] = std::numeric_limits<float>::quiet_NaN();  // row 6: the last rank's
  two_bad[6 * d + 1] = std::numeric_limits<float>::quiet_NaN();
  two_bad[1 * d + 2] = -std::numeric_limits<float>::infinity();
  on_root([&] {
    write_bytes(path("i4.npy"), npy_bytes("<i4", {n, d}, as_bytes(good)));
    write_bytes(path("be.npy"), npy_bytes(">f4", {n, d}, as_bytes(good)));
    write_bytes(path("oned.npy"), npy_bytes("<f4", {n * d}, as_bytes(good)));
    write_bytes(path("fortran.npy"), npy_bytes("<f4", {n, d}, as_bytes(good), 1, true));
    write_bytes(path("nocols.npy"), npy_bytes("<f4", {n, 0}, ""));
    write_bytes(path("norows.npy"), npy_bytes("<f4", {0, d}, ""));
    write_bytes(path("short.npy"), npy_bytes("<f4", {n, d}, as_bytes(good).substr(0, 40)));
    write_bytes(path("nan.npy"), npy_bytes("<f4", {n, d}, as_bytes(nan_last)));
    write_bytes(path("twobad.npy"), npy_bytes("<f4", {n, d}, as_bytes(two_bad)));
    write_bytes(path("text.npy"), "just some text, not numpy");
  });
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("missing.npy"), ""),
                          "cannot open '" + path("missing.npy") + "': No such file or directory");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("data.parquet"), ""),
                          "cannot tell the format");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("i4.npy"), ""),
                          "has dtype '<i4'; expected float32 ('<f4') or float64 ('<f8')");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("be.npy"), ""), "has dtype '>f4'");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("oned.npy"), ""),
                          "must hold a 2-D array (rows x features), got shape (21,)");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("fortran.npy"), ""), "Fortran order");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("nocols.npy"), ""), "(d = 0)");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("norows.npy"), ""), "(n = 0)");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("short.npy"), ""),
                          "is truncated: it is shorter than its header says (shape (7, 3))");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("text.npy"), ""),
                          "is not a NumPy .npy file");
  // Found on one rank only, reported on all; the first bad value wins.
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("nan.npy"), ""),
                          "input contains NaN or Inf values (first at row 6, column 1)");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("twobad.npy"), ""),
                          "input contains NaN or Inf values (first at row 1, column 2)");
  EXPECT_THROW(lsgl::read_dataset(kWorld, path("nan.npy"), ""), CollectiveError);
}

TEST_F(Io, IdxErrors) {
  const std::string pixels(5 * 4, '\x10');
  on_root([&] {
    write_bytes(path("float-idx2-ubyte"), idx_bytes(0x0D, {5, 1}, std::string(20, '\0')));
    write_bytes(path("labels-idx1-ubyte"), idx_bytes(0x08, {20}, pixels));
    write_bytes(path("short-idx2-ubyte"), idx_bytes(0x08, {5, 4}, pixels.substr(0, 13)));
    write_gz(path("short-idx3-ubyte.gz"), idx_bytes(0x08, {5, 2, 2}, pixels.substr(0, 17)));
    write_bytes(path("magic-idx2-ubyte"), "\x01\x02\x08\x02 and so on");
    write_bytes(path("zero-idx3-ubyte"), idx_bytes(0x08, {5, 4, 0}, ""));
  });
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("missing-idx3-ubyte.gz"), ""),
                          "No such file or directory");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("float-idx2-ubyte"), ""),
                          "has IDX element type 0x0D (float32)");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("labels-idx1-ubyte"), ""),
                          "is a 1-D IDX file");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("short-idx2-ubyte"), ""), "is truncated");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("short-idx3-ubyte.gz"), ""),
                          "is truncated");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("magic-idx2-ubyte"), ""),
                          "is not an IDX file");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_dataset(kWorld, path("zero-idx3-ubyte"), ""), "(d = 0)");
  EXPECT_COLLECTIVE_ERROR(lsgl::labels_length(kWorld, path("short-idx2-ubyte"), ""),
                          "must hold a 1-D array of labels, got shape (5, 4)");
  EXPECT_COLLECTIVE_ERROR(lsgl::read_labels(kWorld, path("labels-idx1-ubyte"), "", 18, 3),
                          "cannot read labels [18, 21)");
}

// Reads dataset `name` of `file` whole, on this rank alone.
template <class T>
std::vector<T> read_all(const std::string& file, const std::string& name, int dims) {
  const lsgl::h5::File f = lsgl::h5::open_read(MPI_COMM_SELF, file);
  const int64_t rows = lsgl::h5::dataset_info(f, name).dims[0];
  return dims == 1 ? lsgl::h5::read_1d<T>(f, name, 0, rows)
                   : lsgl::h5::read_2d<T>(f, name, 0, rows);
}

TEST_F(Io, BlobsIndependentOfRankCount) {
  lsgl::BlobsParams p;
  p.n = 4001;
  p.d = 6;
  p.clusters = 4;
  p.cluster_std = 0.5;
  p.seed = 7;
  lsgl::BlobsParams mapped = p;  // 2-D latent space mapped to 5 features, plus noise
  mapped.n = 2;                  // fewer rows than ranks at 3 ranks
  mapped.d = 5;
  mapped.latent_dim = 2;
  mapped.noise = 0.01;
  for (const lsgl::BlobsParams& q : {p, mapped}) {
    const std::string world = path("blobs.h5"), self = path("blobs_self.h5");
    lsgl::generate_blobs(kWorld, q, world);
    EXPECT_EQ(lsgl::test::temporary_files(world), std::vector<std::string>{});
    on_root([&] {
      lsgl::generate_blobs(MPI_COMM_SELF, q, self);
      EXPECT_EQ(read_all<float>(world, "/X", 2), read_all<float>(self, "/X", 2));
      EXPECT_EQ(read_all<int64_t>(world, "/labels", 1), read_all<int64_t>(self, "/labels", 1));
    });
    const lsgl::h5::File f = lsgl::h5::open_read(kWorld, world);
    EXPECT_EQ(lsgl::h5::get_attr_string(f, "/", "kind"), "blobs");
    EXPECT_EQ(lsgl::h5::get_attr_int(f, "/", "n"), q.n);
    EXPECT_EQ(lsgl::h5::get_attr_int(f, "/", "d"), q.d);
    EXPECT_EQ(lsgl::h5::get_attr_int(f, "/", "clusters"), q.clusters);
    EXPECT_EQ(lsgl::h5::get_attr_int(f, "/", "latent_dim"), q.latent_dim > 0 ? q.latent_dim : q.d);
    EXPECT_EQ(lsgl::h5::get_attr_int(f, "/", "seed"), 7);
    EXPECT_EQ(lsgl::h5::get_attr_double(f, "/", "noise"), q.noise);
  }

  // Per-cluster spread: with latent_dim = d and no noise, every feature of cluster c has
  // variance cluster_std^2 around the centre.
  const std::string file = path("blobs_stats.h5");
  lsgl::generate_blobs(kWorld, p, file);
  const LocalRows rows = lsgl::read_dataset(kWorld, file, "/X");
  const std::vector<int64_t> labels =
      lsgl::read_labels(kWorld, file, "/labels", rows.begin, rows.local_rows());
  std::vector<double> stats(static_cast<std::size_t>(p.clusters * (1 + 2 * p.d)), 0.0);
  for (int64_t i = 0; i < rows.local_rows(); ++i) {
    const int64_t c = labels[i];
    ASSERT_TRUE(c >= 0 && c < p.clusters) << c;
    double* s = &stats[c * (1 + 2 * p.d)];
    s[0] += 1;
    for (int64_t j = 0; j < p.d; ++j) {
      s[1 + j] += rows.row(i)[j];
      s[1 + p.d + j] += double(rows.row(i)[j]) * rows.row(i)[j];
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, stats.data(), static_cast<int>(stats.size()), MPI_DOUBLE, MPI_SUM,
                kWorld);
  for (int64_t c = 0; c < p.clusters; ++c) {
    const double* s = &stats[c * (1 + 2 * p.d)];
    EXPECT_GT(s[0], 800) << "cluster " << c;
    for (int64_t j = 0; j < p.d; ++j) {
      const double mean = s[1 + j] / s[0];
      EXPECT_LE(std::abs(mean), p.center_spread + 0.2);
      EXPECT_NEAR(s[1 + p.d + j] / s[0] - mean * mean, 0.25, 0.05) << "cluster " << c;
    }
  }
}

TEST_F(Io, ManifoldIndependentOfRankCount) {
  lsgl::ManifoldParams p;
  p.a = 9;
  p.b = 7;
  p.signals = 40;
  p.smoothness = 1.5;
  p.seed = 3;
  lsgl::ManifoldParams narrow = p;  // fewer signals and nodes than ranks at 3 ranks
  narrow.a = 2;
  narrow.b = 1;
  narrow.signals = 2;
  narrow.smoothness = 0.0;
  for (const lsgl::ManifoldParams& q : {narrow, p}) {
    const std::string world = path("manifold.h5"), self = path("manifold_self.h5");
    lsgl::generate_manifold(kWorld, q, world);
    EXPECT_EQ(lsgl::test::temporary_files(world), std::vector<std::string>{});
    on_root([&] {
      lsgl::generate_manifold(MPI_COMM_SELF, q, self);
      EXPECT_EQ(read_all<float>(world, "/X", 2), read_all<float>(self, "/X", 2));
      EXPECT_EQ(read_all<int64_t>(world, "/grid", 2), read_all<int64_t>(self, "/grid", 2));
    });
  }
  const std::string file = path("manifold.h5");  // p, the last one generated
  const LocalRows rows = lsgl::read_dataset(kWorld, file, "/X");
  EXPECT_EQ(rows.n, p.a * p.b);
  EXPECT_EQ(rows.d, p.signals);
  {
    const lsgl::h5::File f = lsgl::h5::open_read(kWorld, file);
    const std::vector<int64_t> grid =
        lsgl::h5::read_2d<int64_t>(f, "/grid", rows.begin, rows.local_rows());
    for (int64_t i = 0; i < rows.local_rows(); ++i) {
      EXPECT_EQ(grid[2 * i], (rows.begin + i) / p.b);
      EXPECT_EQ(grid[2 * i + 1], (rows.begin + i) % p.b);
    }
    EXPECT_EQ(lsgl::h5::get_attr_string(f, "/", "kind"), "manifold");
    EXPECT_EQ(lsgl::h5::get_attr_int(f, "/", "a"), p.a);
    EXPECT_EQ(lsgl::h5::get_attr_int(f, "/", "b"), p.b);
    EXPECT_EQ(lsgl::h5::get_attr_int(f, "/", "signals"), p.signals);
    EXPECT_EQ(lsgl::h5::get_attr_double(f, "/", "smoothness"), p.smoothness);
    EXPECT_EQ(lsgl::h5::get_attr_int(f, "/", "seed"), 3);
  }
  // Every signal is standardised over the grid.
  std::vector<double> sums(static_cast<std::size_t>(2 * p.signals), 0.0);
  for (int64_t i = 0; i < rows.local_rows(); ++i) {
    for (int64_t s = 0; s < p.signals; ++s) {
      sums[s] += rows.row(i)[s];
      sums[p.signals + s] += double(rows.row(i)[s]) * rows.row(i)[s];
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM,
                kWorld);
  for (int64_t s = 0; s < p.signals; ++s) {
    const double mean = sums[s] / double(rows.n);
    EXPECT_NEAR(mean, 0.0, 1e-6) << "signal " << s;
    EXPECT_NEAR(std::sqrt(sums[p.signals + s] / double(rows.n) - mean * mean), 1.0, 1e-5)
        << "signal " << s;
  }
  // Smooth: neighbouring nodes are strongly correlated (exp(-1/(4 sigma^2)) ~ 0.9 in theory).
  on_root([&] {
    const std::vector<float> x = read_all<float>(file, "/X", 2);
    double along_u = 0, along_v = 0;
    for (int64_t u = 0; u + 1 < p.a; ++u) {
      for (int64_t v = 0; v + 1 < p.b; ++v) {
        for (int64_t s = 0; s < p.signals; ++s) {
          const double here = x[(u * p.b + v) * p.signals + s];
          along_v += here * x[(u * p.b + v + 1) * p.signals + s];
          along_u += here * x[((u + 1) * p.b + v) * p.signals + s];
        }
      }
    }
    const double pairs = double((p.a - 1) * (p.b - 1) * p.signals);
    EXPECT_GT(along_u / pairs, 0.6);
    EXPECT_GT(along_v / pairs, 0.6);
  });
}

TEST_F(Io, GenerateErrors) {
  lsgl::BlobsParams p;
  p.n = 10;
  p.clusters = 0;
  EXPECT_COLLECTIVE_ERROR(lsgl::generate_blobs(kWorld, p, path("bad.h5")), "blobs: need");
  p.clusters = 2;
  const std::string nowhere = path("no/such/dir/blobs.h5");
  EXPECT_COLLECTIVE_ERROR(lsgl::generate_blobs(kWorld, p, nowhere), "cannot create '" + nowhere);
  lsgl::ManifoldParams m;
  m.a = 0;
  EXPECT_COLLECTIVE_ERROR(lsgl::generate_manifold(kWorld, m, path("bad.h5")), "manifold: need");
  EXPECT_FALSE(std::filesystem::exists(path("bad.h5")));
  EXPECT_EQ(lsgl::test::temporary_files(path("bad.h5")), std::vector<std::string>{});
}

// Attributes are rank 0's on every rank, whatever the others pass (a per-rank value once left the
// ranks in different barriers when the file was closed: a hang under ctest's timeout).
TEST_F(Io, AttributesAreRankZeros) {
  {
    lsgl::h5::File f = lsgl::h5::create(kWorld, path("attrs.h5"));
    const lsgl::Attributes attrs = {{"seconds", 0.5 + rank()},
                                    {"rank", std::int64_t{rank()}},
                                    {"name", std::string(rank() + 1, 'x')}};
    lsgl::set_attributes(f, "/", attrs);
    f.close();
  }
  lsgl::h5::File f = lsgl::h5::open_read(kWorld, path("attrs.h5"));
  EXPECT_EQ(lsgl::h5::get_attr_double(f, "/", "seconds"), 0.5);
  EXPECT_EQ(lsgl::h5::get_attr_int(f, "/", "rank"), 0);
  EXPECT_EQ(lsgl::h5::get_attr_string(f, "/", "name"), "x");
}

}  // namespace
