#pragma once
// A data matrix as text (CSV, TSV or whitespace-separated; plain or gzip): one row per line,
// the same number of values on every line. Lines that are empty or start with '#' are skipped.
// A first line that is not all numbers is a header (column names) and is skipped; it must name
// as many columns as the rows have values. So is the line "0,1,...,d-1" that pandas writes for
// the columns of an unnamed DataFrame; a header with an empty first cell (pandas' index column)
// is refused with the fix (to_csv(index=False)). The separator is read from the first data line: a
// comma if it has one, else a tab if it has one, else runs of blanks. Values are decimal numbers
// (as C's strtod reads them, a leading '+' allowed) that fit a float32; NaN and Inf are refused.
// Errors name the file and line (1-based): "'x.csv' line 7: 3 values; the first row has 4".
//
// In parallel, no rank reads the whole file into memory: an uncompressed file is cut into one
// byte range per rank; each rank counts the data lines starting in its range, the counts give
// each rank's block of rows (lsgl::Partition) and where it starts, and each rank then parses only
// its rows. A gzip file cannot be cut: rank 0 counts its lines, then every rank decompresses it
// from the start and parses its rows (time O(file) on every rank, memory O(rows per rank)).
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/io/dataset.hpp"

namespace lsgl {

enum class Separator { kComma, kTab, kBlanks };

// What the first lines of a text matrix say.
struct TextMatrixLayout {
  Separator separator = Separator::kBlanks;
  std::int64_t d = 0;           // values per row
  bool header = false;          // a header line is skipped
  std::int64_t data_start = 0;  // byte offset after the header line (0 without one)
  std::int64_t data_line = 1;   // the 1-based number of the line at data_start
};

// Local. The layout from `head`, the file's text from its start through (at least) its first
// data line. Throws std::runtime_error naming `path` and the line (no data line, a header whose
// column count differs, a header with an empty first cell as pandas writes for its index).
TextMatrixLayout text_matrix_layout(const std::string& head, const std::string& path);

// Local. Whether the line [b, e) (without its newline) is skipped: blank or a '#' comment.
bool skipped_line(const char* b, const char* e);

// Local. Appends the d values of the data line [b, e) to `out`; returns the error (empty when
// the line is good): "3 values; the first row has 4", "column 2: 'abc' is not a number",
// "column 5: NaN (every value must be finite)". Columns are 1-based.
std::string parse_text_row(const char* b, const char* e, const TextMatrixLayout& layout,
                           std::vector<float>& out);

// Collective. This rank's rows of the text matrix `path` (see above); every failure throws
// CollectiveError on every rank with a one-line message.
LocalRows read_text_matrix(MPI_Comm comm, const std::string& path);

}  // namespace lsgl
