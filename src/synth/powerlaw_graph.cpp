// A power-law graph with planted dense communities (see generate.hpp).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "lsgl/graph/symmetrize.hpp"
#include "lsgl/io/h5.hpp"
#include "lsgl/synth/generate.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/memory.hpp"
#include "lsgl/util/mpi.hpp"
#include "rng.hpp"

namespace lsgl {

using std::int64_t;
using std::uint64_t;
using synth::kCommunity;
using synth::kEdge;
using synth::kPermutation;
using synth::Rng;
using synth::set_common_attrs;

namespace {

// Inverse CDF of the density proportional to (x + i0)^(-beta) on [0, n): node floor(x).
struct PowerLawSampler {
  double i0, one_minus_beta, lo, span;
  int64_t n;
  PowerLawSampler(int64_t n_, double beta, double i0_)
      : i0(i0_), one_minus_beta(1.0 - beta), n(n_) {
    lo = std::pow(i0, one_minus_beta);
    span = std::pow(double(n) + i0, one_minus_beta) - lo;
  }
  double cdf(double x) const { return (std::pow(x + i0, one_minus_beta) - lo) / span; }
  int64_t operator()(double u) const {
    const double x = std::pow(lo + u * span, 1.0 / one_minus_beta) - i0;
    return std::min<int64_t>(std::max<int64_t>(static_cast<int64_t>(x), 0), n - 1);
  }
};

// "1.2e+12"-style text of a count held in a double.
std::string format_count(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

int64_t gcd64(int64_t a, int64_t b) {
  while (b) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// a^-1 mod n (a, n coprime).
int64_t inverse_mod(int64_t a, int64_t n) {
  __int128 t = 0, newt = 1, r = n, newr = a;
  while (newr != 0) {
    const __int128 q = r / newr;
    const __int128 t2 = t - q * newt;
    t = newt;
    newt = t2;
    const __int128 r2 = r - q * newr;
    r = newr;
    newr = r2;
  }
  if (t < 0) t += n;
  return static_cast<int64_t>(t);
}

// The parameters' ranges, and the memory of the edge samples and the communities' expected
// edges against the node's.
void check_powerlaw_params(MPI_Comm comm, const PowerlawGraphParams& p) {
  const size_t nc = p.community_sizes.size();
  double planted = 0, pairs = 0;  // nodes and expected edges of the communities
  for (size_t c = 0; c < nc; ++c) {
    const auto s = static_cast<double>(p.community_sizes[c]);
    planted += s;
    const size_t nd = p.community_densities.size();
    if (c < nd || nd == 1) pairs += 0.5 * s * (s - 1) * p.community_densities[std::min(c, nd - 1)];
  }
  collective_check(
      comm,
      p.n >= 2 && p.edges >= 0 && p.exponent > 2.0 && p.max_degree >= 0 &&
          planted <= static_cast<double>(p.n) &&
          (p.community_densities.size() == nc || (p.community_densities.size() == 1 && nc > 0) ||
           (nc == 0 && p.community_densities.empty())),
      "powerlaw-graph: need n >= 2, edges >= 0, exponent > 2, communities that fit "
      "in n, and one density or one per community");
  for (auto s : p.community_sizes)
    collective_check(comm, s >= 2, "powerlaw-graph: communities need at least 2 nodes");
  for (double d : p.community_densities)
    collective_check(comm, d > 0 && d <= 1, "powerlaw-graph: densities must be in (0, 1]");
  collective_check(comm, p.edges > 0 || nc > 0,
                   "powerlaw-graph: --edges 0 without --communities gives a graph without edges");
  const int size = comm_size(comm);
  // Entries (u, v, w): the samples, then both directions while symmetrising; the rows.
  const double entries = static_cast<double>(p.edges) + 2.0 * pairs;
  check_allocation(comm,
                   3.0 * sizeof(DirectedEntry) * entries / size +
                       32.0 * std::ceil(static_cast<double>(p.n) / size),
                   "powerlaw-graph: n = " + std::to_string(p.n) + " with " +
                       std::to_string(p.edges) + " edge samples and communities of " +
                       format_count(pairs) + " expected edges");
}

// pi(j) = (a j + b) mod n, drawn from the seed (a odd and coprime with n): the members of the
// communities, spread over all degrees.
struct MemberPermutation {
  int64_t n = 1, a = 1, b = 0;
  MemberPermutation(int64_t n_, uint64_t seed) : n(n_) {
    Rng prng(seed, kPermutation, 0);
    a = static_cast<int64_t>(prng.next() % uint64_t(n)) | 1;
    while (gcd64(a, n) != 1) a = (a + 2) % n;
    b = static_cast<int64_t>(prng.next() % uint64_t(n));
  }
  int64_t operator()(int64_t j) const {
    return static_cast<int64_t>((static_cast<__int128>(a) * j + b) % n);
  }
  int64_t inverse(int64_t node, int64_t ainv) const {
    return static_cast<int64_t>((static_cast<__int128>(ainv) * ((node - b) % n + n)) % n);
  }
};

// Local. The sampler with i0 such that node 0 expects dmax: 2 * edges * cdf(1) = dmax (cdf(1)
// decreases with i0), by bisection of log(i0).
PowerLawSampler degree_sampler(const PowerlawGraphParams& p, double dmax) {
  const double beta = 1.0 / (p.exponent - 1.0);
  double lo_i0 = 1e-9, hi_i0 = double(p.n);
  for (int it = 0; it < 200; ++it) {
    const double mid = std::sqrt(lo_i0 * hi_i0);
    const double d0 = 2.0 * double(p.edges) * PowerLawSampler(p.n, beta, mid).cdf(1.0);
    (d0 > dmax ? lo_i0 : hi_i0) = mid;
  }
  return PowerLawSampler(p.n, beta, std::sqrt(lo_i0 * hi_i0));
}

// Local. This rank's share of the edge samples and of the community pairs (u < v).
std::vector<DirectedEntry> sample_entries(const PowerlawGraphParams& p,
                                          const PowerLawSampler& sample,
                                          const MemberPermutation& pi, int rank, int size) {
  std::vector<DirectedEntry> entries;
  const Partition ep(p.edges, size);
  entries.reserve(static_cast<size_t>(ep.count(rank)));
  for (int64_t e = ep.begin(rank); e < ep.end(rank); ++e) {
    Rng rng(p.seed, kEdge, static_cast<uint64_t>(e));
    const int64_t u = sample(rng.uniform()), v = sample(rng.uniform());
    entries.push_back({u, v, 1.0});
  }
  int64_t off = 0;
  for (size_t c = 0; c < p.community_sizes.size(); ++c) {
    const int64_t s = p.community_sizes[c];
    const double q =
        p.community_densities.size() == 1 ? p.community_densities[0] : p.community_densities[c];
    const Partition mp(s, size);
    for (int64_t t = mp.begin(rank); t < mp.end(rank); ++t) {
      Rng rng(p.seed, kCommunity, (static_cast<uint64_t>(c) << 40) ^ static_cast<uint64_t>(t));
      // Geometric skipping over u = t+1 .. s-1.
      int64_t u = t;
      while (true) {
        if (q >= 1.0) {
          ++u;
        } else {
          const double r = 1.0 - rng.uniform();  // (0, 1]
          u += 1 + static_cast<int64_t>(std::floor(std::log(r) / std::log1p(-q)));
        }
        if (u >= s) break;
        entries.push_back({pi(off + t), pi(off + u), 1.0});
      }
    }
    off += s;
  }
  return entries;
}

// Local. The planted community of each local node (-1: none).
std::vector<int64_t> planted_communities(const PowerlawGraphParams& p, const LocalCsr& rows,
                                         const MemberPermutation& pi) {
  std::vector<int64_t> community(static_cast<size_t>(rows.local_rows()), -1);
  const int64_t ainv = inverse_mod(pi.a, p.n);
  std::vector<int64_t> ends;
  int64_t off = 0;
  for (auto s : p.community_sizes) ends.push_back(off += s);
  for (int64_t r = 0; r < rows.local_rows(); ++r) {
    const int64_t j = pi.inverse(rows.begin + r, ainv);
    const auto it = std::upper_bound(ends.begin(), ends.end(), j);
    if (it != ends.end()) community[r] = it - ends.begin();
  }
  return community;
}

// Collective. /graph (indptr, indices, data, degree), /planted/community and the attributes.
void write_powerlaw_graph(MPI_Comm comm, const PowerlawGraphParams& p, const LocalCsr& rows,
                          const std::vector<int64_t>& community, double dmax,
                          const std::string& path) {
  const int size = comm_size(comm), rank = comm_rank(comm);
  std::string sizes, dens;
  for (size_t c = 0; c < p.community_sizes.size(); ++c) {
    sizes += (c ? "," : "") + std::to_string(p.community_sizes[c]);
  }
  for (size_t c = 0; c < p.community_densities.size(); ++c) {
    std::ostringstream o;
    o << p.community_densities[c];
    dens += (c ? "," : "") + o.str();
  }
  write_hdf5_atomically(comm, path, [&](const h5::File& f) {
    h5::ensure_group(f, "/graph");
    const int64_t local_nnz = static_cast<int64_t>(rows.indices.size());
    const int64_t nnz_offset = exscan_sum(comm, local_nnz);
    const int64_t nnz = allreduce_sum(comm, local_nnz);
    std::vector<int64_t> indptr(rows.indptr.begin(), rows.indptr.end() - 1);
    for (auto& x : indptr) x += nnz_offset;
    if (rank == size - 1) indptr.push_back(nnz);
    h5::write_1d(f, "/graph/indptr", indptr, rows.begin, p.n + 1);
    h5::write_1d(f, "/graph/indices", rows.indices, nnz_offset, nnz);
    h5::write_1d(f, "/graph/data", rows.data, nnz_offset, nnz);
    std::vector<double> degree(static_cast<size_t>(rows.local_rows()));
    for (int64_t r = 0; r < rows.local_rows(); ++r)
      degree[r] = double(rows.indptr[r + 1] - rows.indptr[r]);
    h5::write_1d(f, "/graph/degree", degree, rows.begin, p.n);
    h5::write_1d(f, "/planted/community", community, rows.begin, p.n);
    h5::set_attr(f, "/graph", "n", p.n);
    h5::set_attr(f, "/graph", "nnz", nnz);
    h5::set_attr(f, "/graph", "model", std::string("powerlaw-graph"));
    h5::set_attr(f, "/graph", "avg_degree", double(nnz) / double(p.n));
    set_common_attrs(f, "powerlaw-graph", p.seed);
    h5::set_attr(f, "/", "n", p.n);
    h5::set_attr(f, "/", "edge_samples", p.edges);
    h5::set_attr(f, "/", "edges", nnz / 2);
    h5::set_attr(f, "/", "exponent", p.exponent);
    h5::set_attr(f, "/", "max_degree", dmax);
    h5::set_attr(f, "/", "community_sizes", sizes);
    h5::set_attr(f, "/", "community_densities", dens);
  });
}

}  // namespace

void generate_powerlaw_graph(MPI_Comm comm, const PowerlawGraphParams& p, const std::string& path) {
  check_powerlaw_params(comm, p);
  const double dmax = p.max_degree > 0 ? p.max_degree : std::sqrt(2.0 * double(p.edges));
  const PowerLawSampler sample = degree_sampler(p, dmax);
  const MemberPermutation pi(p.n, p.seed);
  std::vector<DirectedEntry> entries;
  collectively(comm,
               [&] { entries = sample_entries(p, sample, pi, comm_rank(comm), comm_size(comm)); });
  GraphInputReport rep;
  LocalCsr rows = symmetrize_entries(comm, p.n, std::move(entries), DuplicateRule::kMax, &rep);
  for (auto& w : rows.data) w = 1.0;
  write_powerlaw_graph(comm, p, rows, planted_communities(p, rows, pi), dmax, path);
}

}  // namespace lsgl
