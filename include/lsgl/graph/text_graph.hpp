#pragma once
// The text graph formats of graph_input.hpp (edge lists and Matrix Market), parsed from memory:
// no MPI and no file, so that the parsers can be tested and fuzzed on their own (tests/fuzz).
// Every function is local.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace lsgl {

// A directed entry (u, v, w) as read.
struct DirectedEntry {
  std::int64_t u;
  std::int64_t v;
  double w;
};

// Node ids above this are refused ("node id too large").
constexpr std::int64_t kMaxNodes = std::int64_t(1) << 36;

// What the header says about the entry lines (an edge list has no header).
struct TextFormat {
  bool mtx = false;
  bool pattern = false;        // mtx: no values
  bool symmetric = false;      // mtx: one triangle stored
  std::int64_t n = 0;          // mtx: from the size line
  std::int64_t nnz = 0;        // mtx: entries announced
  std::int64_t data_start = 0; // byte offset of the first entry line
  std::int64_t header_lines = 0;
  bool renumber = false;       // edge list: ids are names, numbered later (NameTable)
};

// The node names met by parse_lines with `renumber`: each entry's u and v are then the names'
// numbers here, made global ids by renumber_names (renumber.hpp).
struct NameTable {
  std::unordered_map<std::string, std::int64_t> index;  // name -> its number here
  std::vector<std::string> names;                        // in order of first appearance here
  std::vector<std::int64_t> first_block;                 // the block of each name's first line
  std::int64_t block = 0;                                // the block being parsed
};

// The entries parsed so far and the first error.
struct ParseState {
  std::vector<DirectedEntry> out;
  std::int64_t max_id = -1;
  std::int64_t lines = 0;      // lines seen (parsed or skipped)
  bool ok = true;
  std::int64_t bad_line = 0;   // index among this rank's lines (0-based) or absolute (gz)
  std::string message;
  NameTable names;             // with TextFormat::renumber
};

// Parses the complete lines in [p, end) into st.out (Matrix Market indices made 0-based); on the
// first malformed line sets st.ok = false, st.message and st.bad_line (the index of that line
// among those parsed by this call and the calls before on `st`).
void parse_lines(const char* p, const char* end, const TextFormat& tf, ParseState& st);

// Local. Whether `line` (without its newline) is the header line of an edge list, e.g.
// "source,target,weight": two or three fields, none of them a number (with `renumber`, two
// fields must both be usual column names: source, target, src, dst, from, to, node1, node2, u,
// v, i, j, in any case; "a b" is an edge).
bool is_edge_list_header(const std::string& line, bool renumber);

// Local. The end (byte offset after its newline) of the header line of the edge list starting
// `text`, the first line that is not empty or a comment, or 0 when that line is not a header;
// `lines` is set to the lines up to and including it.
std::int64_t edge_list_header_end(const std::string& text, bool renumber, std::int64_t& lines);

// Whether `text` starts with a line that claims Matrix Market: a first line beginning with "%%"
// (however misspelt the rest: "%%MatrixMarkt"), or with '%' and naming MatrixMarket in any case
// ("%MatrixMarket ..." with one '%'). Such a file is parsed as Matrix Market (and a bad banner
// refused by parse_mtx_header), never as an edge list whose first line is a comment.
bool names_matrix_market(const std::string& text);

// The Matrix Market banner and size line at the start of `text`; sets tf (pattern, symmetric,
// n, nnz, data_start, header_lines). Returns an error message, empty on success.
std::string parse_mtx_header(const std::string& text, TextFormat& tf);

// A whole edge list (mtx false) or Matrix Market file (mtx true) in memory: the entries, or a
// std::runtime_error naming the line.
std::vector<DirectedEntry> parse_graph_text(const std::string& text, bool mtx);

// The same for an edge list with names as ids, numbered in order of first appearance (0, 1, ...),
// a header line skipped; `names` gets the names in that order. The reference of the parallel
// renumbering in tests.
std::vector<DirectedEntry> parse_named_edge_list(const std::string& text,
                                                 std::vector<std::string>& names);

}  // namespace lsgl
