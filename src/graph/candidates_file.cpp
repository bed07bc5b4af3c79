// Candidate lists read from a file (see candidates_file.hpp).
#include "lsgl/graph/candidates_file.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <sstream>
#include <utility>

#include "lsgl/graph/graph_io.hpp"
#include "npz_graph.hpp"
#include "lsgl/io/h5.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

namespace {

constexpr std::array<CandidateDistance, 3> kDistances = {
    CandidateDistance::kSquared, CandidateDistance::kEuclidean, CandidateDistance::kCosine};

double to_squared(double raw, CandidateDistance distance) {
  if (distance == CandidateDistance::kEuclidean) return raw * raw;
  if (distance == CandidateDistance::kCosine) return 2.0 * raw;
  return raw;
}

double from_squared(double z, CandidateDistance distance) {
  if (distance == CandidateDistance::kEuclidean) return std::sqrt(z);
  if (distance == CandidateDistance::kCosine) return 0.5 * z;
  return z;
}

// Collective. The lists layout as rows of a LocalCsr (m entries per row, distances in data).
LocalCsr read_lists(MPI_Comm comm, const std::string& path, const CandidatesFileOptions& opt) {
  const h5::File f = h5::open_read(comm, path);
  const h5::DatasetInfo ids = h5::dataset_info(f, opt.indices);
  const h5::DatasetInfo dist = h5::dataset_info(f, opt.distances);
  const std::string where = " in '" + path + "'";
  collective_check(comm, ids.type_class == H5T_INTEGER && ids.dims.size() == 2,
                   "candidate ids '" + opt.indices + "'" + where +
                       " must be a 2-D integer array (n x m), got " + ids.describe());
  collective_check(comm, dist.type_class == H5T_FLOAT && dist.dims.size() == 2,
                   "candidate distances '" + opt.distances + "'" + where +
                       " must be a 2-D float array (n x m), got " + dist.describe());
  collective_check(comm, ids.dims == dist.dims && ids.dims[0] >= 2 && ids.dims[1] >= 1,
                   "candidate ids '" + opt.indices + "' (" + ids.describe() + ") and distances '" +
                       opt.distances + "' (" + dist.describe() + ")" + where +
                       " must have the same shape n x m with n >= 2, m >= 1");
  const std::int64_t n = ids.dims[0], m = ids.dims[1];
  const Partition part(n, comm_size(comm));
  LocalCsr rows;
  rows.n = n;
  rows.begin = part.begin(comm_rank(comm));
  rows.indices = h5::read_2d<std::int64_t>(f, opt.indices, rows.begin, part.count(comm_rank(comm)));
  rows.data = h5::read_2d<double>(f, opt.distances, rows.begin, part.count(comm_rank(comm)));
  rows.indptr.resize(static_cast<std::size_t>(part.count(comm_rank(comm)) + 1));
  for (std::size_t r = 0; r < rows.indptr.size(); ++r)
    rows.indptr[r] = static_cast<std::int64_t>(r) * m;
  return rows;
}

// Local. The first invalid entry of this rank's rows, "" when all are valid.
std::string first_invalid(const LocalCsr& rows, const std::string& path) {
  for (std::int64_t r = 0; r < rows.local_rows(); ++r) {
    for (std::int64_t e = rows.indptr[r]; e < rows.indptr[r + 1]; ++e) {
      const std::int64_t j = rows.indices[e];
      const double z = rows.data[e];
      std::ostringstream s;
      s << "'" << path << "': candidate " << e - rows.indptr[r] << " of node " << rows.begin + r;
      if (j < -1 || j >= rows.n)
        return s.str() + " has id " + std::to_string(j) + ", outside [0, " +
               std::to_string(rows.n) + ") (-1 marks padding)";
      if (j >= 0 && !std::isfinite(z)) return s.str() + " has a NaN or infinite distance";
      if (j >= 0 && z < 0) {
        s << " has the negative distance " << z;
        return s.str();
      }
    }
  }
  return {};
}

// Local. Row r's clean (distance, id) pairs, sorted: padding, self and repeats dropped (a
// repeated neighbour keeps its smallest distance).
std::vector<std::pair<double, std::int64_t>> clean_row(const LocalCsr& rows, std::int64_t r,
                                                       CandidateDistance distance,
                                                       CandidatesFileReport& rep) {
  std::vector<std::pair<double, std::int64_t>> out;
  for (std::int64_t e = rows.indptr[r]; e < rows.indptr[r + 1]; ++e) {
    const std::int64_t j = rows.indices[e];
    if (j < 0)
      ++rep.padding;
    else if (j == rows.begin + r)
      ++rep.self;
    else
      out.emplace_back(to_squared(rows.data[e], distance), j);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  const auto end = std::unique(out.begin(), out.end(),
                               [](const auto& a, const auto& b) { return a.second == b.second; });
  rep.duplicates += out.end() - end;
  out.erase(end, out.end());
  std::sort(out.begin(), out.end());
  return out;
}

// Local. Whether `path` starts with a ZIP signature (a scipy .npz).
bool is_zip(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char b[4] = {};
  return f.read(b, 4) && std::string(b, 4) == "PK\x03\x04";
}

}  // namespace

std::string CandidatesFileReport::note() const {
  std::ostringstream s;
  auto item = [&](std::int64_t count, const char* what) {
    if (count == 0) return;
    s << (s.tellp() > 0 ? ", " : "") << count << " " << what;
  };
  item(padding, "padding entries (-1)");
  item(self, "self entries");
  item(duplicates, "repeated neighbours");
  item(beyond_m, "entries beyond the m nearest of each node");
  return s.tellp() > 0 ? "candidates dropped: " + s.str() : "";
}

Candidates read_candidates_file(MPI_Comm comm, const std::string& path,
                                const CandidatesFileOptions& opt, CandidatesFileReport* report) {
  bool csr = false;
  const bool npz = is_zip(path);
  if (!npz) {
    const h5::File f = h5::open_read(comm, path);
    csr = h5::object_kind(f, "/graph/indptr") == h5::ObjectKind::kDataset;
  }
  const LocalCsr rows = npz   ? read_npz_rows(comm, path)
                        : csr ? read_graph(comm, path)
                              : read_lists(comm, path, opt);
  collective_check(comm, opt.n <= 0 || rows.n == opt.n,
                   "'" + path + "' has lists for " + std::to_string(rows.n) +
                       " nodes, the data has " + std::to_string(opt.n) + " rows");
  const std::string bad = first_invalid(rows, path);
  collective_check(comm, bad.empty(), bad);
  CandidatesFileReport rep;
  rep.layout = npz ? "npz" : csr ? "csr" : "lists";
  rep.n = rows.n;
  std::vector<std::vector<std::pair<double, std::int64_t>>> clean(rows.local_rows());
  std::int64_t fewest = rows.n, fewest_node = -1;
  for (std::int64_t r = 0; r < rows.local_rows(); ++r) {
    clean[r] = clean_row(rows, r, opt.distance, rep);
    if (static_cast<std::int64_t>(clean[r].size()) < fewest) {
      fewest = static_cast<std::int64_t>(clean[r].size());
      fewest_node = rows.begin + r;
    }
  }
  collective_check(comm, fewest > 0,
                   "'" + path + "': node " + std::to_string(fewest_node) +
                       " has no candidate left after dropping padding (-1), itself and repeats");
  std::int64_t m = -allreduce_max(comm, -fewest);
  if (opt.max_m > 0) m = std::min<std::int64_t>(m, opt.max_m);
  Candidates cand;
  cand.begin = rows.begin;
  cand.m = static_cast<int>(m);
  cand.report.source = CandidateSource::kFile;
  for (const auto& row : clean) {
    for (std::int64_t k = 0; k < m; ++k) {
      cand.dist.push_back(row[k].first);
      cand.idx.push_back(row[k].second);
    }
    rep.beyond_m += static_cast<std::int64_t>(row.size()) - m;
  }
  rep.entries = allreduce_sum(comm, static_cast<std::int64_t>(rows.indices.size()));
  for (std::int64_t* c : {&rep.padding, &rep.self, &rep.duplicates, &rep.beyond_m})
    *c = allreduce_sum(comm, *c);
  rep.m = cand.m;
  if (report) *report = rep;
  return cand;
}

std::string check_candidate_distances(MPI_Comm comm, const LocalRows& data, const Candidates& cand,
                                      CandidateDistance distance, int sample) {
  std::array<std::int64_t, 3> match = {0, 0, 0};
  std::int64_t used = 0;
  const std::int64_t local = data.local_rows();
  for (std::int64_t r = 0; r < cand.local_rows() && used < sample; ++r) {
    for (int k = 0; k < cand.m && used < sample; ++k) {
      const std::int64_t j = cand.idx[r * cand.m + k] - data.begin;
      if (j < 0 || j >= local) continue;
      const double t = squared_distance(data.row(r), data.row(j), data.d);
      const double raw = from_squared(cand.dist[r * cand.m + k], distance);
      std::array<double, 3> v;
      for (int c = 0; c < 3; ++c) v[c] = to_squared(raw, kDistances[c]);
      // Only pairs where the three readings differ tell them apart.
      const double lo = *std::min_element(v.begin(), v.end());
      const bool apart = t > 1e-12 && std::abs(v[0] - v[1]) > 0.05 * lo &&
                         std::abs(v[0] - v[2]) > 0.05 * lo && std::abs(v[1] - v[2]) > 0.05 * lo;
      if (!apart) continue;
      ++used;
      for (int c = 0; c < 3; ++c) match[c] += std::abs(v[c] - t) <= 1e-3 * t;
    }
  }
  used = allreduce_sum(comm, used);
  for (auto& c : match) c = allreduce_sum(comm, c);
  if (used == 0) return {};
  const int declared = static_cast<int>(std::find(kDistances.begin(), kDistances.end(), distance) -
                                        kDistances.begin());
  auto share = [&](int c) { return static_cast<double>(match[c]) / static_cast<double>(used); };
  if (share(declared) >= 0.5) return {};
  for (int c = 0; c < 3; ++c)
    collective_check(comm, !(share(c) >= 0.9),
                     "the candidate distances do not look " + to_string(distance) + ": " +
                         std::to_string(match[c]) + " of " + std::to_string(used) +
                         " sampled pairs match the data read as " + to_string(kDistances[c]) +
                         ", " + std::to_string(match[declared]) + " as " + to_string(distance) +
                         "; pass --candidates-distance " + to_string(kDistances[c]));
  std::ostringstream s;
  s << "the candidate distances differ from the data's (" << used - match[declared] << " of "
    << used << " sampled pairs off by more than 0.1%); they are used as given";
  return s.str();
}

}  // namespace lsgl
