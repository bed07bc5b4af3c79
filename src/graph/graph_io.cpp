#include "lsgl/graph/graph_io.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "lsgl/io/h5.hpp"
#include "lsgl/util/error.hpp"

namespace lsgl {

namespace {
struct Entry {
  std::int64_t row, col;
  double w, d;  // weight, and the edge's distance when carried (else 0)
};
}  // namespace

LocalCsr assemble_rows(const EdgeSet& edges, const std::vector<double>& w, double threshold,
                       double scale, const std::vector<std::int64_t>* input,
                       const std::function<double(double z)>& distance,
                       std::vector<double>* distances) {
  MPI_Comm comm = edges.comm();
  const int size = comm_size(comm), rank = comm_rank(comm);
  const Partition& part = edges.partition();
  const std::int64_t nl = edges.local_nodes();
  const auto& ptr = edges.row_ptr();
  const auto& other = edges.other();
  const auto& z = edges.z();

  std::vector<std::int64_t> ghost_input;
  if (input) ghost_input = fetch_from_owners(comm, part, edges.ghosts(), *input);
  // Output index of a local-form node index.
  auto id = [&](std::int64_t local_form) {
    if (!input) return edges.global_id(local_form);
    return local_form < nl ? (*input)[edges.local_node(local_form)] : ghost_input[local_form - nl];
  };
  const std::int64_t out_first = part.begin(rank);
  const bool carry = distances && distance;
  // Each kept edge as two entries, (a, b) and (b, a), to the owners of their rows. Counted
  // first: buffers grown by doubling touch twice their size in fresh pages, which the kernel
  // zeroes.
  const auto for_each_kept = [&](const auto& visit) {
    for (std::int64_t a = 0; a < nl; ++a)
      for (std::int64_t e = ptr[a]; e < ptr[a + 1]; ++e)
        if (w[e] > threshold) visit(e, id(a), id(other[e]));
  };
  std::vector<std::size_t> count(static_cast<std::size_t>(size), 0);
  for_each_kept([&](std::int64_t, std::int64_t ga, std::int64_t gb) {
    ++count[part.owner(ga)];
    ++count[part.owner(gb)];
  });
  std::vector<std::vector<Entry>> send(size);
  for (int p = 0; p < size; ++p) send[p].reserve(count[p]);
  for_each_kept([&](std::int64_t e, std::int64_t ga, std::int64_t gb) {
    const double value = w[e] * scale, d = carry ? distance(z[e]) : 0.0;
    send[part.owner(ga)].push_back({ga, gb, value, d});
    send[part.owner(gb)].push_back({gb, ga, value, d});
  });
  std::vector<Entry> mine = std::move(send[rank]);
  send[rank] = std::vector<Entry>();
  std::vector<Entry> received = alltoallv(comm, send);
  send.clear();

  // Grouped by row with a counting sort straight into the output arrays, then each row's few
  // entries sorted by column (the pairs are distinct): linear in the entries, the order of one
  // sort by (row, column), and no copy of the entries as large as the output.
  LocalCsr m;
  m.n = part.n;
  m.begin = out_first;
  m.indptr.assign(nl + 1, 0);
  for (const auto* part_of : {&mine, &received})
    for (const Entry& x : *part_of) ++m.indptr[x.row - out_first + 1];
  std::partial_sum(m.indptr.begin(), m.indptr.end(), m.indptr.begin());
  const std::size_t total = static_cast<std::size_t>(m.indptr[nl]);
  m.indices.resize(total);
  m.data.resize(total);
  if (distances) distances->assign(carry ? total : 0, 0.0);
  {
    std::vector<std::int64_t> at(m.indptr.begin(), m.indptr.end() - 1);
    for (auto* part_of : {&mine, &received}) {
      for (const Entry& x : *part_of) {
        const std::int64_t k = at[x.row - out_first]++;
        m.indices[k] = x.col;
        m.data[k] = x.w;
        if (carry) (*distances)[k] = x.d;
      }
      *part_of = std::vector<Entry>();
    }
  }
  std::vector<Entry> row;
  const auto by_col = [](const Entry& x, const Entry& y) { return x.col < y.col; };
  for (std::int64_t r = 0; r < nl; ++r) {
    const std::int64_t first = m.indptr[r], last = m.indptr[r + 1];
    row.clear();
    for (std::int64_t k = first; k < last; ++k)
      row.push_back({0, m.indices[k], m.data[k], carry ? (*distances)[k] : 0.0});
    std::sort(row.begin(), row.end(), by_col);
    for (std::int64_t k = first; k < last; ++k) {
      const Entry& x = row[static_cast<std::size_t>(k - first)];
      m.indices[k] = x.col;
      m.data[k] = x.w;
      if (carry) (*distances)[k] = x.d;
    }
  }
  return m;
}

GlobalIndptr global_indptr(MPI_Comm comm, const LocalCsr& m) {
  GlobalIndptr g;
  const std::int64_t local_nnz = static_cast<std::int64_t>(m.indices.size());
  g.nnz_offset = exscan_sum(comm, local_nnz);
  g.nnz = allreduce_sum(comm, local_nnz);
  g.slice.assign(m.indptr.begin(), m.indptr.end() - 1);
  for (auto& x : g.slice) x += g.nnz_offset;
  if (comm_rank(comm) == comm_size(comm) - 1) g.slice.push_back(g.nnz);
  return g;
}

std::vector<double> row_sums(const LocalCsr& m) {
  std::vector<double> s(m.local_rows(), 0.0);
  for (std::int64_t r = 0; r < m.local_rows(); ++r)
    for (std::int64_t k = m.indptr[r]; k < m.indptr[r + 1]; ++k) s[r] += m.data[k];
  return s;
}

namespace {

// "attribute 'name' is not finite" for the first double attribute that is not, else "".
std::string non_finite_attribute(const Attributes& attrs) {
  for (const auto& [name, value] : attrs)
    if (std::holds_alternative<double>(value) && !std::isfinite(std::get<double>(value)))
      return "attribute '" + name + "' is not finite";
  return "";
}

}  // namespace

void check_finite_output(MPI_Comm comm, const LocalCsr& m, const std::vector<double>& degree,
                         const Attributes& attrs) {
  std::string message;
  for (std::int64_t r = 0; r < m.local_rows() && message.empty(); ++r) {
    if (!std::isfinite(degree[r]))
      message = "degree of node " + std::to_string(m.begin + r) + " is not finite";
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1] && message.empty(); ++e)
      if (!std::isfinite(m.data[e]))
        message = "weight (" + std::to_string(m.begin + r) + ", " + std::to_string(m.indices[e]) +
                  ") is not finite";
  }
  if (message.empty()) message = non_finite_attribute(attrs);
  collective_check(comm, message.empty(), "graph not written: the " + message + " (NaN or Inf)");
}

void check_finite_values(MPI_Comm comm, const std::string& what, const FiniteArrays& arrays,
                         const Attributes& attrs) {
  std::string message;
  for (const auto& [name, values] : arrays) {
    const auto bad = std::find_if(values->begin(), values->end(),
                                  [](double v) { return !std::isfinite(v); });
    if (bad != values->end()) {
      message = "value " + std::to_string(bad - values->begin()) + " of " + name + " on rank " +
                std::to_string(comm_rank(comm)) + " is not finite";
      break;
    }
  }
  if (message.empty()) message = non_finite_attribute(attrs);
  collective_check(comm, message.empty(), what + " not written: the " + message + " (NaN or Inf)");
}

void check_distances(MPI_Comm comm, const LocalCsr& m, const EdgeDistances& d) {
  std::string message;
  if (d.values.size() != m.data.size())
    message = std::to_string(d.values.size()) + " distances for " +
              std::to_string(m.data.size()) + " weights on rank " +
              std::to_string(comm_rank(comm));
  for (std::size_t e = 0; e < d.values.size() && message.empty(); ++e)
    if (!(std::isfinite(d.values[e]) && d.values[e] >= 0))
      message = "distance " + std::to_string(e) + " on rank " + std::to_string(comm_rank(comm)) +
                " is not a finite number >= 0";
  collective_check(comm, message.empty(), "graph not written: " + message);
}

void write_graph(MPI_Comm comm, const std::string& path, const LocalCsr& m,
                 const Attributes& graph_attrs, const Attributes& file_attrs,
                 const EdgeDistances* distances) {
  const std::vector<double> degree = row_sums(m);
  Attributes attrs(graph_attrs);
  attrs.insert(attrs.end(), file_attrs.begin(), file_attrs.end());
  check_finite_output(comm, m, degree, attrs);
  if (distances) check_distances(comm, m, *distances);
  write_hdf5_atomically(comm, path, [&](const h5::File& f) {
    h5::ensure_group(f, "/graph");
    const GlobalIndptr g = global_indptr(comm, m);
    h5::write_1d(f, "/graph/indptr", g.slice, m.begin, m.n + 1);
    h5::write_1d(f, "/graph/indices", m.indices, g.nnz_offset, g.nnz);
    h5::write_1d(f, "/graph/data", m.data, g.nnz_offset, g.nnz);
    h5::write_1d(f, "/graph/degree", degree, m.begin, m.n);
    if (distances) {
      h5::write_1d(f, "/graph/distances", distances->values, g.nnz_offset, g.nnz);
      h5::set_attr(f, "/graph/distances", "metric", distances->metric);
    }
    set_attributes(f, "/graph", graph_attrs);
    set_attributes(f, "/", file_attrs);
  });
}

namespace {

// Collective. This rank's slice of /graph/indptr must be non-decreasing and within the
// /graph/indices array (checked before the entries are allocated and read).
void check_indptr(MPI_Comm comm, const LocalCsr& m, std::int64_t nnz, const std::string& path) {
  std::string message;
  for (std::size_t r = 0; r < m.indptr.size() && message.empty(); ++r) {
    if (m.indptr[r] < 0 || m.indptr[r] > nnz)
      message = "'" + path + "': /graph/indptr[" + std::to_string(m.begin + r) + "] = " +
                std::to_string(m.indptr[r]) + " is outside [0, " + std::to_string(nnz) + "]";
    else if (r > 0 && m.indptr[r] < m.indptr[r - 1])
      message = "'" + path + "': /graph/indptr decreases at row " +
                std::to_string(m.begin + r - 1) + " (it must be non-decreasing)";
  }
  collective_check(comm, message.empty(), message);
}

// Collective. What an HDF5 file without /graph/indptr holds instead, and what to do: a 2-D
// dataset is taken for a data matrix (learn a graph from it), /hash for hash codes.
std::string not_a_graph_file(const h5::File& f, const std::string& path) {
  const std::string head = "'" + path + "' holds no lsgl graph (no /graph/indptr)";
  if (h5::object_kind(f, "/hash") == h5::ObjectKind::kGroup)
    return head + " but lsgl hash codes (`lsgl hash eval` reads them)";
  for (const auto& [name, info] : h5::list_datasets(f))
    if (info.dims.size() == 2)
      return head + " but the " + std::to_string(info.dims[0]) + " x " +
             std::to_string(info.dims[1]) + " matrix " + name +
             ": learn a graph from it with `lsgl learn --input " + path + " --dataset " + name +
             "`";
  return head + "; lsgl graphs are written by `lsgl learn` or `lsgl convert`";
}

}  // namespace

LocalCsr read_graph(MPI_Comm comm, const std::string& path, RowBlocks blocks) {
  h5::File f = h5::open_read(comm, path);
  if (h5::object_kind(f, "/graph") != h5::ObjectKind::kGroup ||
      h5::object_kind(f, "/graph/indptr") != h5::ObjectKind::kDataset)
    collective_check(comm, false, not_a_graph_file(f, path));
  const std::int64_t n = h5::length_1d(f, "/graph/indptr") - 1;
  collective_check(comm, n >= 1, "'" + path + "' has an empty /graph/indptr");
  const Partition part(n, comm_size(comm));
  const int rank = comm_rank(comm);
  LocalCsr m;
  m.n = n;
  m.begin = part.begin(rank);
  m.indptr = h5::read_1d<std::int64_t>(f, "/graph/indptr", m.begin, part.count(rank) + 1);
  const std::int64_t nnz = h5::length_1d(f, "/graph/indices");
  check_indptr(comm, m, nnz, path);
  if (blocks == RowBlocks::kBalanced) {
    const std::vector<std::int64_t> starts = balanced_starts(comm, m);
    m.begin = starts[rank];
    m.indptr =
        h5::read_1d<std::int64_t>(f, "/graph/indptr", m.begin, starts[rank + 1] - m.begin + 1);
    check_indptr(comm, m, nnz, path);
  }
  const std::int64_t start = m.indptr.front(), count = m.indptr.back() - start;
  m.indices = h5::read_1d<std::int64_t>(f, "/graph/indices", start, count);
  m.data = h5::read_1d<double>(f, "/graph/data", start, count);
  for (auto& x : m.indptr) x -= start;
  return m;
}

}  // namespace lsgl
