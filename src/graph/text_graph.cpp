// Edge list and Matrix Market text parsing (see text_graph.hpp).
#include "lsgl/graph/text_graph.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace lsgl {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == ','; }

// Parses a non-negative integer at p (advancing it); false if there is none.
bool parse_id(const char*& p, const char* end, std::int64_t& v) {
  if (p < end && *p == '+') ++p;
  if (p >= end || *p < '0' || *p > '9') return false;
  std::int64_t x = 0;
  while (p < end && *p >= '0' && *p <= '9') {
    x = x * 10 + (*p - '0');
    if (x > (std::int64_t(1) << 50)) return false;
    ++p;
  }
  v = x;
  return true;
}

}  // namespace

void parse_lines(const char* p, const char* end, const TextFormat& tf, ParseState& st) {
  while (p < end && st.ok) {
    const char* eol = static_cast<const char*>(std::memchr(p, '\n', end - p));
    if (!eol) eol = end;
    const char* q = p;
    while (q < eol && is_space(q[0])) ++q;
    if (q < eol && *q != '#' && *q != '%') {
      std::int64_t u = 0, v = 0;
      double w = 1.0;
      const char* err = nullptr;
      if (*q == '-') err = "negative node id";
      else if (std::isalpha(static_cast<unsigned char>(*q)) || *q == '"')
        err = "node ids must be integers 0..n-1, not names or a header line (remove a header "
              "line; map names to integers first, e.g. pandas.factorize)";
      else if (!parse_id(q, eol, u)) err = "expected 'u v [w]'";
      while (!err && q < eol && is_space(*q)) ++q;
      if (!err && q < eol && *q == '-') err = "negative node id";
      if (!err && !parse_id(q, eol, v)) err = "expected 'u v [w]'";
      while (!err && q < eol && is_space(*q)) ++q;
      if (!err && q < eol) {
        if (tf.mtx && tf.pattern) {
          err = "unexpected value on a pattern Matrix Market line";
        } else {
          auto r = std::from_chars(q, eol, w);
          if (r.ec != std::errc()) {
            // from_chars does not accept "inf"/"nan" spellings with signs etc. uniformly
            if (r.ec == std::errc::result_out_of_range) err = "weight out of range";
            else err = "expected a number as weight";
          } else {
            q = r.ptr;
            while (q < eol && is_space(*q)) ++q;
            if (q < eol) err = "expected 'u v [w]' (extra fields)";
          }
        }
      } else if (!err && tf.mtx && !tf.pattern) {
        err = "missing value on a Matrix Market line";
      }
      if (!err && !std::isfinite(w)) err = "weight is NaN or infinite";
      if (!err && w < 0) err = "negative weight";
      if (!err && tf.mtx) {
        if (u < 1 || v < 1 || u > tf.n || v > tf.n) err = "index out of range 1..n";
        --u;
        --v;
      }
      if (!err && (u >= kMaxNodes || v >= kMaxNodes)) err = "node id too large";
      if (err) {
        st.ok = false;
        st.message = err;
        st.bad_line = st.lines;
        break;
      }
      st.max_id = std::max(st.max_id, std::max(u, v));
      st.out.push_back({u, v, w});
    }
    ++st.lines;
    p = eol + 1;
  }
}

bool names_matrix_market(const std::string& text) {
  if (text.empty() || text[0] != '%') return false;
  if (text.size() > 1 && text[1] == '%') return true;
  std::string first = text.substr(0, text.find('\n'));
  for (auto& c : first) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return first.find("matrixmarket") != std::string::npos;
}

std::string parse_mtx_header(const std::string& text, TextFormat& tf) {
  std::size_t at = 0;
  auto next_line = [&](std::string& line) {
    if (at >= text.size()) return false;
    std::size_t e = text.find('\n', at);
    if (e == std::string::npos) {
      if (text.size() == at) return false;
      e = text.size();
    }
    line = text.substr(at, e - at);
    at = e + 1;
    return true;
  };
  std::string line;
  if (!next_line(line)) return "empty Matrix Market file";
  ++tf.header_lines;
  std::istringstream h(line);
  std::string banner, object, format, field, symmetry;
  h >> banner >> object >> format >> field >> symmetry;
  auto lower = [](std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  object = lower(object);
  format = lower(format);
  field = lower(field);
  symmetry = lower(symmetry);
  if (banner != "%%MatrixMarket" || object != "matrix")
    return "the first line '" + line.substr(0, 80) +
           "' is not a Matrix Market banner ('%%MatrixMarket matrix coordinate ...')";
  if (format != "coordinate") return "only the Matrix Market coordinate format is supported";
  if (field == "pattern")
    tf.pattern = true;
  else if (field != "real" && field != "integer")
    return "Matrix Market field '" + field + "' is not supported (real, integer or pattern)";
  if (symmetry == "symmetric")
    tf.symmetric = true;
  else if (symmetry != "general")
    return "Matrix Market symmetry '" + symmetry +
           "' is not supported (general or symmetric; weights must be non-negative)";
  while (next_line(line)) {
    ++tf.header_lines;
    std::size_t p = line.find_first_not_of(" \t\r");
    if (p == std::string::npos || line[p] == '%') continue;
    std::istringstream s(line);
    long long rows = -1, cols = -1, nnz = -1;
    std::string extra;
    if (!(s >> rows >> cols >> nnz) || (s >> extra) || rows < 0 || cols < 0 || nnz < 0)
      return "malformed Matrix Market size line '" + line + "'";
    if (rows != cols)
      return "the matrix is not square (" + std::to_string(rows) + " x " + std::to_string(cols) +
             ")";
    if (rows > kMaxNodes) return "too many nodes";
    tf.n = rows;
    tf.nnz = nnz;
    tf.data_start = static_cast<std::int64_t>(at);
    return "";
  }
  return "Matrix Market size line not found in the first " + std::to_string(text.size()) +
         " bytes";
}

std::vector<DirectedEntry> parse_graph_text(const std::string& text, bool mtx) {
  TextFormat tf;
  tf.mtx = mtx;
  if (mtx) {
    const std::string message = parse_mtx_header(text, tf);
    if (!message.empty()) throw std::runtime_error(message);
  }
  ParseState st;
  parse_lines(text.data() + tf.data_start, text.data() + text.size(), tf, st);
  if (!st.ok)
    throw std::runtime_error("line " + std::to_string(tf.header_lines + st.bad_line + 1) + ": " +
                             st.message);
  return st.out;
}

}  // namespace lsgl
