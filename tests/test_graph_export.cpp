// Graph exports: Matrix Market and edge lists read back by lsgl's graph reader give the same
// graph (weights bit for bit); the npz file is parsed here by an independent ZIP and .npy reader
// (CRC-32 of each member checked) and holds the CSR arrays of the graph; on 1, 2 and 3 ranks.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "lsgl/graph/graph_export.hpp"
#include "lsgl/graph/graph_input.hpp"
#include "lsgl/util/mpi.hpp"
#include "support.hpp"

using namespace lsgl;

namespace {

MPI_Comm world() { return MPI_COMM_WORLD; }

std::string tmpdir() {
  static const std::string dir = lsgl::test::shared_tmpdir("lsgl-gexp");
  return dir;
}

// The symmetric graph on n nodes: a path with weights 0.1 (i + 1) + 1/3 and chords (i, i + 5)
// with weights 1/(i + 7); with `isolated_last`, node n - 1 has no edge.
std::vector<std::vector<std::pair<std::int64_t, double>>> full_graph(std::int64_t n,
                                                                     bool isolated_last) {
  std::vector<std::vector<std::pair<std::int64_t, double>>> adj(n);
  auto add = [&](std::int64_t i, std::int64_t j, double w) {
    if (isolated_last && (i == n - 1 || j == n - 1)) return;
    adj[i].emplace_back(j, w);
    adj[j].emplace_back(i, w);
  };
  for (std::int64_t i = 0; i + 1 < n; ++i)
    add(i, i + 1, 0.1 * static_cast<double>(i + 1) + 1.0 / 3);
  for (std::int64_t i = 0; i + 5 < n; ++i) add(i, i + 5, 1.0 / static_cast<double>(i + 7));
  for (auto& row : adj) std::sort(row.begin(), row.end());
  return adj;
}

// This rank's rows of full_graph.
LocalCsr my_rows(std::int64_t n, bool isolated_last) {
  const auto adj = full_graph(n, isolated_last);
  const Partition part(n, comm_size(world()));
  LocalCsr m;
  m.n = n;
  m.begin = part.begin(comm_rank(world()));
  for (std::int64_t i = m.begin; i < part.end(comm_rank(world())); ++i) {
    for (const auto& [j, w] : adj[i]) {
      m.indices.push_back(j);
      m.data.push_back(w);
    }
    m.indptr.push_back(static_cast<std::int64_t>(m.indices.size()));
  }
  return m;
}

void expect_same_rows(const LocalCsr& a, const LocalCsr& b) {
  EXPECT_EQ(a.n, b.n);
  EXPECT_EQ(a.begin, b.begin);
  EXPECT_EQ(a.indptr, b.indptr);
  EXPECT_EQ(a.indices, b.indices);
  EXPECT_EQ(a.data, b.data);  // exact: the shortest round-trip text
}

TEST(GraphExport, MatrixMarketAndEdgeListReadBack) {
  const LocalCsr g = my_rows(23, false);
  for (const char* to : {"mtx", "edgelist"}) {
    const std::string path = tmpdir() + "/g." + to;
    if (std::string(to) == "mtx")
      write_graph_mtx(world(), path, g);
    else
      write_graph_edgelist(world(), path, g);
    GraphInputReport rep;
    const LocalCsr back = read_graph_input(world(), path, {}, &rep);
    expect_same_rows(back, g);
    EXPECT_EQ(rep.format, to);
    EXPECT_EQ(rep.edges, 22 + 18);
    if (std::string(to) == "mtx") {
      EXPECT_TRUE(rep.declared_symmetric);
    } else {  // each edge once: read as undirected
      EXPECT_EQ(rep.one_direction, rep.edges);
      EXPECT_EQ(rep.unequal, 0);
    }
    EXPECT_EQ(rep.duplicates, 0);
  }
  // Matrix Market keeps n when the last node has no edge; an edge list cannot.
  const LocalCsr h = my_rows(23, true);
  write_graph_mtx(world(), tmpdir() + "/h.mtx", h);
  expect_same_rows(read_graph_input(world(), tmpdir() + "/h.mtx", {}, nullptr), h);
}

// The whole decompressed text of a gzip file (zlib's gzread reads concatenated members).
std::string gunzip(const std::string& path) {
  gzFile z = gzopen(path.c_str(), "rb");
  EXPECT_NE(z, nullptr) << path;
  std::string text;
  char buf[1 << 16];
  for (int got; (got = gzread(z, buf, sizeof buf)) > 0;) text.append(buf, got);
  gzclose(z);
  return text;
}

std::string file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// A .gz output holds gzip (the magic), decompresses to the uncompressed output of the same
// writer (byte for byte) and is read back by lsgl's reader as the same graph.
TEST(GraphExport, GzipOutputIsTheTextCompressed) {
  const LocalCsr g = my_rows(23, false);
  for (const char* to : {"mtx", "txt"}) {
    const std::string plain = tmpdir() + "/z." + to, gz = plain + ".gz";
    write_graph_file(world(), plain, g, {}, {});
    write_graph_file(world(), gz, g, {}, {});
    const std::string bytes = file_bytes(gz);
    ASSERT_GE(bytes.size(), 2u);
    EXPECT_EQ(bytes.substr(0, 2), "\x1f\x8b") << to;
    EXPECT_EQ(gunzip(gz), file_bytes(plain)) << to;
    GraphInputReport rep;
    expect_same_rows(read_graph_input(world(), gz, {}, &rep), g);
    EXPECT_EQ(rep.format, std::string(to == std::string("mtx") ? "mtx" : "edgelist") + ".gz");
  }
  for (const char* refused : {"/r.npz.gz", "/r.h5.gz", "/r.gz"})
    EXPECT_THROW(graph_output_format("--output", tmpdir() + refused), std::invalid_argument)
        << refused;
}

// An npz written by write_graph_npz (stored members) is read back as the same graph.
TEST(GraphExport, NpzReadBack) {
  const LocalCsr g = my_rows(23, false);
  write_graph_npz(world(), tmpdir() + "/back.npz", g);
  GraphInputReport rep;
  expect_same_rows(read_graph_input(world(), tmpdir() + "/back.npz", {}, &rep), g);
  EXPECT_EQ(rep.format, "npz");
  EXPECT_EQ(rep.edges, 22 + 18);
}

// ------------------------------------------------------------ an independent npz reader

std::uint32_t u32(const std::string& s, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, s.data() + at, 4);
  return v;
}
std::uint16_t u16(const std::string& s, std::size_t at) {
  std::uint16_t v;
  std::memcpy(&v, s.data() + at, 2);
  return v;
}

// Member name -> bytes, walking the local headers of a stored (uncompressed) ZIP; checks each
// member's CRC-32 and that the archive ends with an end-of-central-directory record.
std::map<std::string, std::string> read_zip(const std::string& z) {
  std::map<std::string, std::string> out;
  std::size_t at = 0;
  while (at + 30 <= z.size() && u32(z, at) == 0x04034b50) {
    EXPECT_EQ(u16(z, at + 8), 0);  // stored
    const std::uint32_t crc = u32(z, at + 14);
    std::uint64_t size = u32(z, at + 22);
    const std::size_t name_len = u16(z, at + 26), extra_len = u16(z, at + 28);
    const std::string name = z.substr(at + 30, name_len);
    if (size == 0xFFFFFFFFu) {  // ZIP64 extra field: id 1, then the uncompressed size
      EXPECT_EQ(u16(z, at + 30 + name_len), 1);
      std::memcpy(&size, z.data() + at + 30 + name_len + 4, 8);
    }
    const std::size_t data = at + 30 + name_len + extra_len;
    out[name] = z.substr(data, size);
    EXPECT_EQ(crc32(0, reinterpret_cast<const Bytef*>(out[name].data()), static_cast<uInt>(size)),
              crc)
        << name;
    at = data + size;
  }
  EXPECT_EQ(u32(z, z.size() - 22), 0x06054b50u);
  return out;
}

// The values of a .npy member after checking its header's descr and shape.
std::string npy_values(const std::string& npy, const std::string& descr, const std::string& shape) {
  EXPECT_EQ(npy.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t len = u16(npy, 8);
  const std::string header = npy.substr(10, len);
  EXPECT_NE(header.find("'descr': '" + descr + "'"), std::string::npos) << header;
  EXPECT_NE(header.find("'shape': " + shape), std::string::npos) << header;
  EXPECT_EQ((10 + len) % 64, 0u);
  return npy.substr(10 + len);
}

template <class T>
std::vector<T> as_vector(const std::string& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

TEST(GraphExport, NpzHoldsTheCsrArrays) {
  const std::int64_t n = 23;
  const std::string path = tmpdir() + "/g.npz";
  write_graph_npz(world(), path, my_rows(n, false));
  std::ifstream f(path, std::ios::binary);
  const std::string z((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto members = read_zip(z);
  ASSERT_EQ(members.size(), 5u);
  std::vector<std::int64_t> indptr{0}, indices;
  std::vector<double> data;
  for (const auto& row : full_graph(n, false)) {
    for (const auto& [j, w] : row) {
      indices.push_back(j);
      data.push_back(w);
    }
    indptr.push_back(static_cast<std::int64_t>(indices.size()));
  }
  const std::string nnz = "(" + std::to_string(indices.size()) + ",)";
  EXPECT_EQ(as_vector<std::int64_t>(npy_values(members["indptr.npy"], "<i8", "(24,)")), indptr);
  EXPECT_EQ(as_vector<std::int64_t>(npy_values(members["indices.npy"], "<i8", nnz)), indices);
  EXPECT_EQ(as_vector<double>(npy_values(members["data.npy"], "<f8", nnz)), data);
  EXPECT_EQ(npy_values(members["format.npy"], "|S3", "()"), "csr");
  EXPECT_EQ(as_vector<std::int64_t>(npy_values(members["shape.npy"], "<i8", "(2,)")),
            (std::vector<std::int64_t>{n, n}));
}

}  // namespace
