// The input formats of issue 28 at the current number of ranks: text data matrices (CSV, TSV,
// blank-separated; header or not; gzip) read by read_dataset give the matrix that was written,
// each rank its block of rows, with errors naming the file line; the layout rules on their own.
// (scipy's .npz graphs, csr/csc/coo, stored and compressed, are read against scipy in
// tests/cli/formats_tests.py; write_graph_npz's file is read back in test_graph_export.)
#include <gtest/gtest.h>

#include <charconv>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "lsgl/io/dataset.hpp"
#include "lsgl/io/text_matrix.hpp"
#include "lsgl/util/mpi.hpp"
#include "support.hpp"

using namespace lsgl;

namespace {

MPI_Comm world() { return MPI_COMM_WORLD; }

std::string tmpdir() {
  static const std::string dir = lsgl::test::shared_tmpdir("lsgl-informats");
  return dir;
}

// Rank 0 writes `text` (gzipped when gz) in the shared directory; every rank gets the path.
std::string write_file(const std::string& name, const std::string& text, bool gz = false) {
  return lsgl::test::write_shared_file(tmpdir(), name, text, gz);
}

constexpr std::int64_t kN = 301, kD = 4;

// Value (i, j) of the test matrix: exact in float32 and in short decimal text, of varied length
// so that byte ranges cut lines anywhere.
float value(std::int64_t i, std::int64_t j) {
  return static_cast<float>((i * kD + j) % 977) * 0.25f - 60.0f + (j == 2 ? 1e6f * (i % 3) : 0);
}

// The matrix as text: `sep` between values, an optional header, comment and blank lines, and
// CRLF line ends with `crlf`.
std::string matrix_text(const std::string& sep, bool header, bool crlf) {
  std::ostringstream s;
  const std::string eol = crlf ? "\r\n" : "\n";
  s << "# written by test_input_formats" << eol;
  if (header) s << "a" << sep << "b" << sep << "c" << sep << "d" << eol;
  for (std::int64_t i = 0; i < kN; ++i) {
    if (i % 50 == 7) s << eol << "  # a comment between rows" << eol;
    for (std::int64_t j = 0; j < kD; ++j) {
      char buf[32];
      const auto r = std::to_chars(buf, buf + sizeof buf, value(i, j));
      s << (j ? sep : "") << std::string(buf, r.ptr);
    }
    s << eol;
  }
  return s.str();
}

void expect_matrix(const LocalRows& r, const std::string& what) {
  const Partition part(kN, comm_size(world()));
  ASSERT_EQ(r.n, kN) << what;
  ASSERT_EQ(r.d, kD) << what;
  ASSERT_EQ(r.begin, part.begin(comm_rank(world()))) << what;
  ASSERT_EQ(r.local_rows(), part.count(comm_rank(world()))) << what;
  for (std::int64_t l = 0; l < r.local_rows(); ++l)
    for (std::int64_t j = 0; j < kD; ++j)
      ASSERT_EQ(r.row(l)[j], value(r.begin + l, j)) << what << " row " << r.begin + l;
}

TEST(TextMatrix, EveryLayoutGivesTheMatrix) {
  int k = 0;
  for (const std::string sep : {",", ", ", "\t", " ", "   "})
    for (const bool header : {false, true})
      for (const bool gz : {false, true}) {
        const bool crlf = (k++ % 3) == 0;
        const std::string name = "m" + std::to_string(k) + (sep[0] == ',' ? ".csv" : ".tsv") +
                                 (gz ? ".gz" : "");
        const std::string path = write_file(name, matrix_text(sep, header, crlf), gz);
        expect_matrix(read_dataset(world(), path, "/X"), name);
      }
}

TEST(TextMatrix, FormatOverridesTheName) {
  const std::string path = write_file("matrix.dat", matrix_text(",", true, false));
  expect_matrix(read_dataset(world(), path, "/X", DataFormat::kCsv), "matrix.dat");
  EXPECT_NE(test::error_of([&] { read_dataset(world(), path, "/X"); }).find("--input-format"),
            std::string::npos);
}

// Every rank refuses a bad line with the file's line number, wherever the line is.
TEST(TextMatrix, ErrorsNameTheLine) {
  struct Case {
    std::string text, message;
  };
  std::string good;
  for (int i = 0; i < 200; ++i) good += std::to_string(i) + ",1.5,2\n";
  const std::vector<Case> cases = {
      {"x,y,z\n" + good + "1,2\n", "line 202: 2 values; the first row has 3"},
      {good + "1,2,3,4\n" + good, "line 201: 4 values"},
      {"1,2,3\n4,abc,6\n", "line 2: column 2: 'abc' is not a number"},
      {good + "1,nan,3\n", "line 201: column 2: NaN"},
      {"1,2,3\n" + good + "4,inf,6\n", "line 202: column 2: inf is not a finite float32"},
      {"1,2,3\n4,1e39,6\n", "column 2: 1e39 is not a finite float32"},
      {"1,,3\n", "line 1: column 2: empty cell"},
      {",a,b\n0,1,2\n", "line 1: the header's first cell is empty"},
      {"a,b\n1,2,3\n", "the header names 2 columns, line 2 has 3 values"},
      {"a,b,c\n", "has a header line and no data lines"},
      {"# only a comment\n\n", "has no data lines"},
  };
  int k = 0;
  for (const Case& c : cases) {
    const std::string path = write_file("bad" + std::to_string(k++) + ".csv", c.text);
    const std::string err = test::error_of([&] { read_dataset(world(), path, "/X"); });
    EXPECT_NE(err.find(c.message), std::string::npos) << "got: " << err;
    EXPECT_NE(err.find(path), std::string::npos) << err;
  }
}

TEST(TextMatrix, Layout) {
  TextMatrixLayout l = text_matrix_layout("# c\na,b,c\n1,2,3\n", "f");
  EXPECT_TRUE(l.header);
  EXPECT_EQ(l.separator, Separator::kComma);
  EXPECT_EQ(l.d, 3);
  EXPECT_EQ(l.data_start, 10);
  EXPECT_EQ(l.data_line, 3);
  l = text_matrix_layout("1\t2\n", "f");
  EXPECT_FALSE(l.header);
  EXPECT_EQ(l.separator, Separator::kTab);
  EXPECT_EQ(l.data_start, 0);
  l = text_matrix_layout("0,1,2\n5,6,7\n", "f");  // pandas' names of unnamed columns
  EXPECT_TRUE(l.header);
  l = text_matrix_layout("0,2,1\n5,6,7\n", "f");
  EXPECT_FALSE(l.header);
  l = text_matrix_layout("1.5 -2e3  +4\n", "f");
  EXPECT_EQ(l.separator, Separator::kBlanks);
  EXPECT_EQ(l.d, 3);
  std::vector<float> row;
  EXPECT_EQ(parse_text_row("1.5 -2e3  +4", "1.5 -2e3  +4" + 12, l, row), "");
  EXPECT_EQ(row, (std::vector<float>{1.5f, -2000.0f, 4.0f}));
}

}  // namespace
