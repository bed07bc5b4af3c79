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

// The integer ids u and v of an edge-list or Matrix Market line at q (advancing it); an error
// message or null.
const char* parse_integer_ids(const char*& q, const char* eol, std::int64_t& u,
                              std::int64_t& v) {
  if (*q == '-') return "negative node id";
  if (std::isalpha(static_cast<unsigned char>(*q)) || *q == '"')
    return "node ids must be integers 0..n-1, not names (give --renumber to number names and "
           "ids of any size densely; a first line 'source,target,weight' is read as a header)";
  if (!parse_id(q, eol, u)) return "expected 'u v [w]'";
  while (q < eol && is_space(*q)) ++q;
  if (q < eol && *q == '-') return "negative node id";
  if (!parse_id(q, eol, v)) return "expected 'u v [w]'";
  return nullptr;
}

// A name at q (advancing it): a run of characters other than blanks and commas, or any text
// but '"' between double quotes (CSV quoting: "cell 1"). False for an empty or unclosed name.
bool parse_name(const char*& q, const char* eol, std::string& name) {
  if (q < eol && *q == '"') {
    const char* close = static_cast<const char*>(std::memchr(q + 1, '"', eol - q - 1));
    if (!close) return false;
    name.assign(q + 1, close);
    q = close + 1;
    return !name.empty() && (q == eol || is_space(*q));
  }
  const char* a = q;
  while (q < eol && !is_space(*q)) ++q;
  name.assign(a, q);
  return a < q;
}

// The number of `name` in `t`, adding it (with the current block) when new.
std::int64_t name_number(NameTable& t, const std::string& name) {
  const auto [it, added] = t.index.emplace(name, static_cast<std::int64_t>(t.names.size()));
  if (added) {
    t.names.push_back(name);
    t.first_block.push_back(t.block);
  }
  return it->second;
}

const char* const kBadName =
    "expected a node name: a word, or text between double quotes (\"\" and unclosed quotes are "
    "refused)";

// The names u and v of an edge-list line at q as numbers in `t`; an error message or null.
const char* parse_named_ids(const char*& q, const char* eol, NameTable& t, std::int64_t& u,
                            std::int64_t& v) {
  std::string a, b;
  if (!parse_name(q, eol, a)) return kBadName;
  while (q < eol && is_space(*q)) ++q;
  if (q >= eol) return "expected 'u v [w]'";
  if (!parse_name(q, eol, b)) return kBadName;
  u = name_number(t, a);
  v = name_number(t, b);
  return nullptr;
}

// The fields of a line split at blanks and commas.
std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> f;
  const char* q = line.data();
  const char* end = q + line.size();
  while (true) {
    while (q < end && is_space(*q)) ++q;
    if (q >= end) break;
    std::string name;
    if (!parse_name(q, end, name))
      while (q < end && !is_space(*q)) ++q;  // not a name: the field ends at a separator
    f.push_back(name);
  }
  return f;
}

bool is_number(const std::string& s) {
  double x = 0;
  const char* b = s.data() + (!s.empty() && s[0] == '+' ? 1 : 0);
  const auto r = std::from_chars(b, s.data() + s.size(), x);
  return r.ec != std::errc::invalid_argument && r.ptr == s.data() + s.size();
}

bool is_column_name(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const char* const kNames[] = {"source", "target", "src", "dst", "from", "to",
                                       "node1",  "node2",  "u",   "v",   "i",    "j"};
  for (const char* k : kNames)
    if (s == k) return true;
  return false;
}

}  // namespace

bool is_edge_list_header(const std::string& line, bool renumber) {
  const std::vector<std::string> f = fields_of(line);
  if (f.size() != 2 && f.size() != 3) return false;
  for (const std::string& x : f)
    if (is_number(x)) return false;
  return f.size() == 3 || !renumber || (is_column_name(f[0]) && is_column_name(f[1]));
}

std::int64_t edge_list_header_end(const std::string& text, bool renumber, std::int64_t& lines) {
  std::size_t at = 0;
  lines = 0;
  while (at < text.size()) {
    std::size_t e = text.find('\n', at);
    const bool last = e == std::string::npos;
    if (last) e = text.size();
    const std::string line = text.substr(at, e - at);
    ++lines;
    const std::size_t p = line.find_first_not_of(" \t\r,");
    if (p != std::string::npos && line[p] != '#' && line[p] != '%')
      return is_edge_list_header(line, renumber) ? static_cast<std::int64_t>(last ? e : e + 1)
                                                 : 0;
    at = e + 1;
  }
  return 0;
}

void parse_lines(const char* p, const char* end, const TextFormat& tf, ParseState& st) {
  while (p < end && st.ok) {
    const char* eol = static_cast<const char*>(std::memchr(p, '\n', end - p));
    if (!eol) eol = end;
    const char* q = p;
    while (q < eol && is_space(q[0])) ++q;
    if (q < eol && *q != '#' && *q != '%') {
      std::int64_t u = 0, v = 0;
      double w = 1.0;
      const char* err = tf.renumber ? parse_named_ids(q, eol, st.names, u, v)
                                    : parse_integer_ids(q, eol, u, v);
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
      if (!err && !tf.renumber && (u >= kMaxNodes || v >= kMaxNodes)) err = "node id too large";
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

namespace {

std::vector<DirectedEntry> parse_text(const std::string& text, TextFormat& tf, ParseState& st) {
  if (tf.mtx) {
    const std::string message = parse_mtx_header(text, tf);
    if (!message.empty()) throw std::runtime_error(message);
  } else {
    tf.data_start = edge_list_header_end(text, tf.renumber, tf.header_lines);
    if (tf.data_start == 0) tf.header_lines = 0;
  }
  parse_lines(text.data() + tf.data_start, text.data() + text.size(), tf, st);
  if (!st.ok)
    throw std::runtime_error("line " + std::to_string(tf.header_lines + st.bad_line + 1) + ": " +
                             st.message);
  return st.out;
}

}  // namespace

std::vector<DirectedEntry> parse_graph_text(const std::string& text, bool mtx) {
  TextFormat tf;
  tf.mtx = mtx;
  ParseState st;
  return parse_text(text, tf, st);
}

std::vector<DirectedEntry> parse_named_edge_list(const std::string& text,
                                                 std::vector<std::string>& names) {
  TextFormat tf;
  tf.renumber = true;
  ParseState st;
  std::vector<DirectedEntry> out = parse_text(text, tf, st);
  names = std::move(st.names.names);
  return out;
}

}  // namespace lsgl
