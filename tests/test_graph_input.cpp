// Graph readers: edge lists (plain and gzip), Matrix Market (general, symmetric, pattern), our
// HDF5 graph; normalisation (symmetrise, self-loops, duplicates, asymmetry report); large files
// split across ranks and gzip blocks; bad input raises CollectiveError on every rank.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <unordered_map>
#include <random>
#include <string>

#include "lsgl/cli/choices.hpp"
#include "lsgl/graph/graph_input.hpp"
#include "lsgl/graph/graph_io.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "support.hpp"

using namespace lsgl;

namespace {

MPI_Comm world() { return MPI_COMM_WORLD; }

std::string tmpdir() {
  static const std::string dir = lsgl::test::shared_tmpdir("lsgl-gin");
  return dir;
}

// Rank 0 writes `text` (gzipped when gz) in the shared directory; every rank gets the path.
std::string write_file(const std::string& name, const std::string& text, bool gz = false) {
  return lsgl::test::write_shared_file(tmpdir(), name, text, gz);
}

struct Triple {
  std::int64_t i, j;
  double w;
  bool operator==(const Triple& o) const { return i == o.i && j == o.j && w == o.w; }
};

// All stored entries of the distributed rows, in row order (identical on every rank).
std::vector<Triple> entries(const LocalCsr& m) {
  std::vector<Triple> mine;
  for (std::int64_t r = 0; r < m.local_rows(); ++r)
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e)
      mine.push_back({m.begin + r, m.indices[e], m.data[e]});
  return allgather_items(world(), mine);
}

// Expected symmetric matrix as entries from an undirected map {i<j: w}.
std::vector<Triple> expected(const std::map<std::pair<int, int>, double>& und) {
  std::map<std::pair<int, int>, double> full;
  for (const auto& [ij, w] : und) {
    full[ij] = w;
    full[{ij.second, ij.first}] = w;
  }
  std::vector<Triple> out;
  for (const auto& [ij, w] : full) out.push_back({ij.first, ij.second, w});
  return out;
}

LocalCsr read(const std::string& path, GraphInputReport* rep = nullptr,
              GraphFormat format = GraphFormat::kAuto, DuplicateRule rule = DuplicateRule::kSum) {
  GraphInputOptions o;
  o.format = format;
  o.duplicates = rule;
  return read_graph_input(world(), path, o, rep);
}

const char* kEdgeList =
    "# a SNAP-style comment\n"
    "% another comment\n"
    "\n"
    "0 1\n"
    "1\t2 2.5\n"
    "2,3,0.5\n"
    "3 3 7\n"  // self-loop: dropped
    "4 0 1.5\n"
    "0 4 1.5\n"   // the same edge in the other direction: symmetric pair
    "1 2 2.5\n"   // duplicate of (1, 2): summed -> 5, max with (2, 1) absent -> 5
    "5 6 0\n"     // zero weight: dropped (nodes 5, 6 still counted in n)
    "2 1 1\r\n";  // (2, 1) = 1 vs (1, 2) = 5: unequal pair, W = max = 5

}  // namespace

TEST(GraphInput, EdgeListPlainAndGzip) {
  for (bool gz : {false, true}) {
    const std::string path = write_file(gz ? "e.txt.gz" : "e.txt", kEdgeList, gz);
    GraphInputReport rep;
    const LocalCsr m = read(path, &rep);
    EXPECT_EQ(m.n, 7);
    EXPECT_EQ(rep.format, gz ? "edgelist.gz" : "edgelist");
    EXPECT_EQ(entries(m), expected({{{0, 1}, 1.0}, {{1, 2}, 5.0}, {{2, 3}, 0.5}, {{0, 4}, 1.5}}));
    EXPECT_EQ(rep.entries, 9);
    EXPECT_EQ(rep.self_loops, 1);
    EXPECT_EQ(rep.zero_weights, 1);
    EXPECT_EQ(rep.duplicates, 1);
    EXPECT_EQ(rep.one_direction, 2);  // (0,1) and (2,3)
    EXPECT_EQ(rep.unequal, 1);        // (1,2)
    EXPECT_EQ(rep.edges, 4);
    EXPECT_TRUE(rep.weighted);
    EXPECT_FALSE(rep.symmetric());
    EXPECT_NE(rep.note().find("not symmetric"), std::string::npos);
  }
  // max instead of sum for repeats
  const std::string path = write_file("e.txt", kEdgeList);
  EXPECT_EQ(entries(read(path, nullptr, GraphFormat::kAuto, DuplicateRule::kMax)),
            expected({{{0, 1}, 1.0}, {{1, 2}, 2.5}, {{2, 3}, 0.5}, {{0, 4}, 1.5}}));
}

TEST(GraphInput, SymmetricEdgeListHasNoNote) {
  const std::string path = write_file("sym.txt", "0 1 2\n1 0 2\n1 2\n2 1\n");
  GraphInputReport rep;
  const LocalCsr m = read(path, &rep);
  EXPECT_TRUE(rep.symmetric());
  EXPECT_TRUE(rep.note().empty());
  EXPECT_EQ(entries(m), expected({{{0, 1}, 2.0}, {{1, 2}, 1.0}}));
}

TEST(GraphInput, MatrixMarketVariants) {
  const std::string general =
      "%%MatrixMarket matrix coordinate real general\n% comment\n4 4 4\n1 2 1.5\n2 1 1.5\n3 4 2\n4 "
      "4 9\n";
  const std::string symmetric =
      "%%MatrixMarket matrix coordinate integer symmetric\n4 4 3\n2 1 3\n4 3 1\n3 2 2\n";
  const std::string pattern = "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n3 1\n";
  for (bool gz : {false, true}) {
    GraphInputReport rep;
    LocalCsr m = read(write_file(gz ? "g.mtx.gz" : "g.mtx", general, gz), &rep);
    EXPECT_EQ(rep.format, gz ? "mtx.gz" : "mtx");
    EXPECT_EQ(m.n, 4);
    EXPECT_EQ(entries(m), expected({{{0, 1}, 1.5}, {{2, 3}, 2.0}}));
    EXPECT_EQ(rep.self_loops, 1);
    EXPECT_EQ(rep.one_direction, 1);
    m = read(write_file(gz ? "s.mtx.gz" : "s.mtx", symmetric, gz), &rep);
    EXPECT_EQ(entries(m), expected({{{0, 1}, 3.0}, {{2, 3}, 1.0}, {{1, 2}, 2.0}}));
    EXPECT_TRUE(rep.declared_symmetric);
    EXPECT_TRUE(rep.note().empty());
    m = read(write_file(gz ? "p.mtx.gz" : "p.mtx", pattern, gz), &rep);
    EXPECT_EQ(entries(m), expected({{{0, 1}, 1.0}, {{0, 2}, 1.0}}));
    EXPECT_FALSE(rep.weighted);
  }
}

TEST(GraphInput, Hdf5GraphRoundTripAndAsymmetricFile) {
  // Symmetric rows written by write_graph come back unchanged.
  std::vector<DirectedEntry> e;
  if (comm_rank(world()) == 0)
    for (int i = 0; i < 50; ++i)
      for (int j = i + 1; j < 50; ++j)
        if ((i * 7 + j * 3) % 5 == 0) e.push_back({i, j, 0.25 + 0.01 * i});
  const LocalCsr sym = symmetrize_entries(world(), 50, e, DuplicateRule::kSum, nullptr);
  const std::string path = tmpdir() + "/g.h5";
  write_graph(world(), path, sym, {{"n", std::int64_t(50)}}, {});
  GraphInputReport rep;
  const LocalCsr back = read(path, &rep);
  EXPECT_EQ(rep.format, "hdf5");
  EXPECT_EQ(entries(back), entries(sym));
  EXPECT_TRUE(rep.symmetric());
  // Keep only the upper triangle: not symmetric any more; normalised back to the full matrix.
  LocalCsr upper;
  upper.n = sym.n;
  upper.begin = sym.begin;
  for (std::int64_t r = 0; r < sym.local_rows(); ++r) {
    for (std::int64_t k = sym.indptr[r]; k < sym.indptr[r + 1]; ++k)
      if (sym.indices[k] > sym.begin + r) {
        upper.indices.push_back(sym.indices[k]);
        upper.data.push_back(sym.data[k]);
      }
    upper.indptr.push_back(static_cast<std::int64_t>(upper.indices.size()));
  }
  const std::string path2 = tmpdir() + "/u.h5";
  write_graph(world(), path2, upper, {}, {});
  const LocalCsr fixed = read(path2, &rep);
  EXPECT_EQ(entries(fixed), entries(sym));
  EXPECT_GT(rep.one_direction, 0);
  EXPECT_FALSE(rep.symmetric());
}

TEST(GraphInput, LargeFileSplitAcrossRanksAndGzipBlocks) {
  // ~12 MB of text: several 8 MB gzip blocks and byte ranges cutting lines.
  std::string text;
  std::vector<DirectedEntry> ref;
  std::mt19937_64 rng(3);
  const int lines = 700000;
  text.reserve(lines * 20);
  for (int t = 0; t < lines; ++t) {
    const std::int64_t a = rng() % 50000, b = rng() % 50000;
    const double w = 1.0 + static_cast<double>(rng() % 8) / 8;
    if (t % 1000 == 0) text += "# comment line\n";
    text += std::to_string(a) + " " + std::to_string(b) + " " + std::to_string(w) + "\n";
    if (comm_rank(world()) == 0) ref.push_back({a, b, std::stod(std::to_string(w))});
  }
  std::int64_t n = 0;
  for (const auto& x : ref) n = std::max({n, x.u + 1, x.v + 1});
  n = allreduce_max(world(), n);
  const auto want = entries(symmetrize_entries(world(), n, ref, DuplicateRule::kSum, nullptr));
  for (bool gz : {false, true}) {
    const LocalCsr m = read(write_file(gz ? "big.txt.gz" : "big.txt", text, gz));
    EXPECT_EQ(m.n, n);
    EXPECT_EQ(entries(m), want) << (gz ? "gzip" : "plain");
  }
}

TEST(GraphInput, BadInputIsACollectiveErrorOnEveryRank) {
  const std::map<std::string, std::string> bad = {
      {"letters.txt", "0 1\n1 x\n"},
      {"negweight.txt", "0 1 1\n1 2 -3\n"},
      {"nan.txt", "0 1 nan\n"},
      {"negid.txt", "0 1\n-1 2\n"},
      {"extra.txt", "0 1 2 3\n"},
      {"onefield.txt", "0\n"},
      {"empty.txt", "# nothing\n"},
      {"nnz.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 5\n1 2 1\n"},
      {"square.mtx", "%%MatrixMarket matrix coordinate real general\n3 4 1\n1 2 1\n"},
      {"array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n"},
      {"range.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 4 1\n"},
      {"skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 1 1\n"},
      // A banner with one '%' (any case) is Matrix Market, refused, not an edge-list comment.
      {"onepercent.mtx", "%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 1\n"},
      {"lowercase.txt", "% matrixmarket matrix coordinate real general\n3 3 1\n1 2 1\n"},
  };
  for (const auto& [name, text] : bad) {
    const std::string path = write_file(name, text);
    bool threw = false;
    std::string what;
    try {
      read(path);
    } catch (const CollectiveError& e) {
      threw = true;
      what = e.what();
    }
    EXPECT_TRUE(threw) << name;
    EXPECT_NE(what.find(name), std::string::npos) << name << ": " << what;
  }
  // Line numbers in messages (the bad line is 3).
  try {
    read(write_file("line3.txt", "0 1\n# c\n2 -5\n"));
    ADD_FAILURE() << "no error";
  } catch (const CollectiveError& e) {
    EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read(tmpdir() + "/does-not-exist.txt"), CollectiveError);
  // A Matrix Market file forced to be an edge list: its size line would become an edge.
  EXPECT_THROW(read(write_file("forced.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                             "3 3 1\n1 2 1\n"),
                    nullptr, GraphFormat::kEdgeList),
               CollectiveError);
  // A first comment line that does not name MatrixMarket stays an edge-list comment.
  EXPECT_EQ(read(write_file("comment.txt", "% my graph\n0 1 2\n")).n, 2);
  EXPECT_THROW(read(write_file("plain.txt", "0 1\n"), nullptr, GraphFormat::kHdf5),
               CollectiveError);
  EXPECT_THROW(cli::parse_choice<GraphFormat>("format", "xml"), std::invalid_argument);
  // Negative weight in an HDF5 graph.
  LocalCsr m;
  m.n = 2;
  const Partition part(2, comm_size(world()));
  m.begin = part.begin(comm_rank(world()));
  for (std::int64_t r = 0; r < part.count(comm_rank(world())); ++r) {
    m.indices.push_back(1 - (m.begin + r));
    m.data.push_back(-1.0);
    m.indptr.push_back(static_cast<std::int64_t>(m.indices.size()));
  }
  const std::string h5 = tmpdir() + "/neg.h5";
  write_graph(world(), h5, m, {}, {});
  EXPECT_THROW(read(h5), CollectiveError);
}

namespace {

LocalCsr read_with(const std::string& path, SymmetryPolicy policy, GraphInputReport* rep = nullptr,
                   DuplicateRule rule = DuplicateRule::kSum) {
  GraphInputOptions o;
  o.duplicates = rule;
  o.symmetry = policy;
  return read_graph_input(world(), path, o, rep);
}

}  // namespace

TEST(GraphInput, SymmetryPolicyNames) {
  EXPECT_EQ(cli::parse_choice<SymmetryPolicy>("symmetry", "symmetrise"),
            SymmetryPolicy::kSymmetrise);
  EXPECT_EQ(cli::parse_choice<SymmetryPolicy>("symmetry", "require"), SymmetryPolicy::kRequire);
  EXPECT_THROW(cli::parse_choice<SymmetryPolicy>("symmetry", "symmetric"), std::invalid_argument);
  EXPECT_EQ(cli::parse_choice<DuplicateRule>("duplicates", "max"), DuplicateRule::kMax);
  EXPECT_THROW(cli::parse_choice<DuplicateRule>("duplicates", "min"), std::invalid_argument);
}

TEST(GraphInput, RequirePolicyOnText) {
  // Each edge listed once: undirected edges under both policies, the same rows.
  const std::string once = write_file("once.txt", "0 1 2\n1 2 3\n4 2 0.5\n3 3 1\n");
  GraphInputReport rep;
  const auto want = expected({{{0, 1}, 2.0}, {{1, 2}, 3.0}, {{2, 4}, 0.5}});
  EXPECT_EQ(entries(read_with(once, SymmetryPolicy::kRequire, &rep)), want);
  EXPECT_EQ(rep.one_direction, 3);
  EXPECT_EQ(rep.self_loops, 1);
  EXPECT_EQ(entries(read_with(once, SymmetryPolicy::kSymmetrise)), want);
  // Both directions with equal weights, and a declared-symmetric Matrix Market file: accepted.
  EXPECT_EQ(entries(read_with(write_file("both.txt", "0 1 2\n1 0 2\n"), SymmetryPolicy::kRequire)),
            expected({{{0, 1}, 2.0}}));
  EXPECT_EQ(entries(read_with(write_file("sym.mtx", "%%MatrixMarket matrix coordinate real "
                                                    "symmetric\n3 3 2\n2 1 4\n3 2 5\n"),
                              SymmetryPolicy::kRequire)),
            expected({{{0, 1}, 4.0}, {{1, 2}, 5.0}}));
  // Two pairs listed both ways with different weights, on different ranks' rows: refused under
  // require, naming the file and the pair with the smallest (i, j); max of the two otherwise.
  const std::string clash =
      write_file("clash.txt", "25 28 1\n28 25 2\n0 1 1\n2 3 1\n3 2 7\n29 0 1\n");
  const std::string what = test::error_of([&] { read_with(clash, SymmetryPolicy::kRequire); });
  EXPECT_NE(what.find("clash.txt"), std::string::npos) << what;
  EXPECT_NE(what.find("2 pairs"), std::string::npos) << what;
  EXPECT_NE(what.find("(2, 3) has weight 1 and (3, 2) has weight 7"), std::string::npos) << what;
  EXPECT_EQ(entries(read_with(clash, SymmetryPolicy::kSymmetrise, &rep)),
            expected({{{25, 28}, 2.0}, {{0, 1}, 1.0}, {{2, 3}, 7.0}, {{0, 29}, 1.0}}));
  EXPECT_EQ(rep.unequal, 2);
  // Repeats are merged before the directions are compared: 1 + 1 = 2 matches (1, 0) = 2 under
  // sum, max(1, 1) = 1 does not.
  const std::string repeats = write_file("repeats.txt", "0 1 1\n0 1 1\n1 0 2\n");
  EXPECT_EQ(entries(read_with(repeats, SymmetryPolicy::kRequire, &rep)), expected({{{0, 1}, 2.0}}));
  EXPECT_EQ(rep.duplicates, 1);
  EXPECT_THROW(read_with(repeats, SymmetryPolicy::kRequire, nullptr, DuplicateRule::kMax),
               CollectiveError);
}

TEST(GraphInput, RequirePolicyOnHdf5) {
  // A path 0 - 1 - ... - 11 with weights 1 + i / 4, a self-loop on every row and a stored zero
  // (5, 6) = (6, 5) = 0: require drops the loops and zeros and keeps the rest as stored.
  const std::int64_t n = 12;
  const Partition part(n, comm_size(world()));
  LocalCsr m;
  m.n = n;
  m.begin = part.begin(comm_rank(world()));
  std::map<std::pair<int, int>, double> und;
  for (int i = 0; i + 1 < n; ++i)
    if (i != 5) und[{i, i + 1}] = 1.0 + i / 4.0;
  for (std::int64_t r = 0; r < part.count(comm_rank(world())); ++r) {
    const std::int64_t i = m.begin + r;
    std::map<std::int64_t, double> row = {{i, 9.0}};
    if (i > 0) row[i - 1] = i - 1 == 5 ? 0.0 : 1.0 + (i - 1) / 4.0;
    if (i + 1 < n) row[i + 1] = i == 5 ? 0.0 : 1.0 + i / 4.0;
    for (const auto& [j, w] : row) {
      m.indices.push_back(j);
      m.data.push_back(w);
    }
    m.indptr.push_back(static_cast<std::int64_t>(m.indices.size()));
  }
  const std::string path = tmpdir() + "/loops.h5";
  write_graph(world(), path, m, {}, {});
  GraphInputReport rep;
  EXPECT_EQ(entries(read_with(path, SymmetryPolicy::kRequire, &rep)), expected(und));
  EXPECT_EQ(rep.format, "hdf5");
  EXPECT_EQ(rep.n, n);
  EXPECT_EQ(rep.self_loops, n);
  EXPECT_EQ(rep.zero_weights, 2);
  EXPECT_EQ(rep.edges, n - 2);
  EXPECT_TRUE(rep.weighted);
  EXPECT_EQ(entries(read_with(path, SymmetryPolicy::kSymmetrise)), expected(und));
  // One weight changed on the last rank's last row: not symmetric. Refused under require (the
  // message names the row), repaired (max of the two) under symmetrise.
  LocalCsr bent = m;
  if (comm_rank(world()) == comm_size(world()) - 1) bent.data[bent.data.size() - 2] = 5.0;
  const std::string bent_path = tmpdir() + "/bent.h5";
  write_graph(world(), bent_path, bent, {}, {});
  const std::string what = test::error_of([&] { read_with(bent_path, SymmetryPolicy::kRequire); });
  EXPECT_NE(what.find("not symmetric"), std::string::npos) << what;
  EXPECT_NE(what.find("bent.h5"), std::string::npos) << what;
  auto fixed = und;
  fixed[{10, 11}] = 5.0;
  EXPECT_EQ(entries(read_with(bent_path, SymmetryPolicy::kSymmetrise, &rep)), expected(fixed));
  EXPECT_EQ(rep.unequal, 1);
}

namespace {

// Every rank's names (Renumbering blocks), concatenated in rank order: all names by id.
std::vector<std::string> gathered_names(const std::vector<std::string>& block) {
  std::vector<char> mine;
  for (const std::string& s : block) {
    mine.insert(mine.end(), s.begin(), s.end());
    mine.push_back('\n');
  }
  const std::vector<char> all = allgather_items(world(), mine);
  std::vector<std::string> out;
  std::string cur;
  for (const char c : all) {
    if (c == '\n') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  return out;
}

LocalCsr read_renumbered(const std::string& path, std::vector<std::string>& names,
                         GraphInputReport* rep = nullptr) {
  GraphInputOptions o;
  o.renumber = true;
  std::vector<std::string> block;
  LocalCsr m = read_graph_input(world(), path, o, rep, &block);
  names = gathered_names(block);
  return m;
}

}  // namespace

// --renumber: names (words, quoted words, integers beyond any array size) numbered in order of
// first appearance, checked against a map built here; the graph equals the one read from the
// integer ids of that map. ~12 MB: byte ranges and several 8 MB gzip blocks on 2 and 3 ranks.
TEST(GraphInput, RenumberedNamesAreFirstAppearanceOrder) {
  std::mt19937_64 rng(5);
  std::string named = "source,target,weight\n", numbered;
  std::unordered_map<std::string, std::int64_t> id;
  std::vector<std::string> order;
  auto number = [&](const std::string& name) {
    const auto [it, added] = id.emplace(name, static_cast<std::int64_t>(order.size()));
    if (added) order.push_back(name);
    return it->second;
  };
  auto spell = [](std::uint64_t x) {
    if (x % 3 == 0) return "gene-" + std::to_string(x);
    if (x % 3 == 1) return std::to_string(1000000000000ULL + x);
    return "\"cell " + std::to_string(x) + "\"";  // quoted, with a blank: one name "cell x"
  };
  for (int t = 0; t < 400000; ++t) {
    const std::uint64_t a = rng() % 60000, b = rng() % 60000;
    const std::string w = std::to_string(1 + rng() % 8);
    if (t % 997 == 0) named += "# comment\n";
    std::string sa = spell(a), sb = spell(b);
    named += sa + "," + sb + "," + w + "\n";
    if (sa[0] == '"') sa = sa.substr(1, sa.size() - 2);
    if (sb[0] == '"') sb = sb.substr(1, sb.size() - 2);
    const std::int64_t u = number(sa), v = number(sb);
    numbered += std::to_string(u) + " " + std::to_string(v) + " " + w + "\n";
  }
  const auto want = entries(read(write_file("renum-ints.txt", numbered)));
  for (bool gz : {false, true}) {
    std::vector<std::string> names;
    GraphInputReport rep;
    const LocalCsr m = read_renumbered(
        write_file(gz ? "renum.txt.gz" : "renum.txt", named, gz), names, &rep);
    EXPECT_EQ(m.n, static_cast<std::int64_t>(order.size()));
    EXPECT_TRUE(names == order) << (gz ? "gzip" : "plain") << ": names differ";
    EXPECT_TRUE(entries(m) == want) << (gz ? "gzip" : "plain") << ": graphs differ";
    EXPECT_TRUE(rep.header && rep.renumbered);
    EXPECT_NE(rep.note().find("header line skipped"), std::string::npos) << rep.note();
  }
}

// A header line is recognised with integer ids too; with --renumber a first line "a b" is an
// edge, "source target" a header; bad named input is a CollectiveError naming file and line.
TEST(GraphInput, HeaderLinesAndRenumberRefusals) {
  EXPECT_TRUE(entries(read(write_file("hdr.txt", "# c\nsrc,dst,weight\n0,1,2\n1,2,3\n"))) ==
              entries(read(write_file("nohdr.txt", "0 1 2\n1 2 3\n"))));
  std::vector<std::string> names;
  EXPECT_EQ(read_renumbered(write_file("ab.txt", "a b\nb c\n"), names).n, 3);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(read_renumbered(write_file("st.txt", "Source Target\nb c\n"), names).n, 2);
  EXPECT_EQ(names, (std::vector<std::string>{"b", "c"}));
  const std::map<std::string, std::string> bad = {
      {"rn-weight.txt", "a b 1\nb c x\n"},     {"rn-empty.txt", "a b 1\n\"\" c 1\n"},
      {"rn-onefield.txt", "a b 1\nb\n"},       {"rn-noedges.txt", "source,target,weight\n"},
      {"rn-negative.txt", "a b 1\nb c -1\n"},  {"rn-extra.txt", "a b 1\nb c 1 2\n"}};
  for (const auto& [name, text] : bad) {
    try {
      read_renumbered(write_file(name, text), names);
      ADD_FAILURE() << name << ": no error";
    } catch (const CollectiveError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      if (name != "rn-noedges.txt")
        EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
    }
  }
  for (const char* other : {"rn.mtx", "rn.h5"}) {
    const std::string path = tmpdir() + "/" + other;
    if (std::string(other) == "rn.mtx")
      write_file(other, "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1\n");
    else
      write_graph(world(), path, read(write_file("rn-src.txt", "0 1\n")), {}, {});
    EXPECT_THROW(read_renumbered(path, names), CollectiveError) << other;
  }
}
