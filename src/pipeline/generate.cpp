// Synthetic data sets (see generate.hpp). All randomness comes from counter-based splitmix64
// streams keyed by (seed, purpose, index), so every value depends on the seed and its own index
// only: the output is identical for any number of ranks or OpenMP threads.
#include "lsgl/pipeline/generate.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

#include "lsgl/graph/symmetrize.hpp"
#include "lsgl/io/h5.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/memory.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/splitmix.hpp"
#include "lsgl/util/version.hpp"

namespace lsgl {
namespace {

using std::int64_t;
using std::uint64_t;

// Stream purposes.
constexpr uint64_t kCentres = 1, kMixing = 2, kRow = 3, kSignal = 4, kEdge = 5, kCommunity = 6,
                   kPermutation = 7;

// A splitmix64 sequence started from a hash of (seed, purpose, index); normals by Box-Muller.
// Portable: unlike std:: distributions it gives the same numbers with every standard library.
class Rng {
 public:
  Rng(uint64_t seed, uint64_t purpose, uint64_t index)
      : stream_(mix64(mix64(splitmix64(seed) ^ purpose) ^ index)) {}
  uint64_t next() { return stream_.next(); }
  // Uniform in [0, 1).
  double uniform() { return stream_.uniform(); }
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(1.0 - uniform()));  // 1 - u lies in (0, 1]
    const double t = 6.283185307179586 * uniform();                // 2 pi
    spare_ = r * std::sin(t);
    has_spare_ = true;
    return r * std::cos(t);
  }

 private:
  SplitMix64 stream_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

void set_common_attrs(const h5::File& f, const std::string& kind, uint64_t seed) {
  h5::set_attr(f, "/", "kind", kind);
  h5::set_attr(f, "/", "seed", seed);
  h5::set_attr(f, "/", "generator", std::string("lsgl ") + version());
}

// Normalised Gaussian kernel of standard deviation sigma, truncated at 4 sigma: weights for
// offsets -R..R. sigma = 0 gives the identity.
std::vector<double> gaussian_kernel(double sigma) {
  const auto radius = static_cast<int64_t>(std::ceil(4.0 * sigma));
  std::vector<double> w(static_cast<std::size_t>(2 * radius + 1));
  double sum = 0.0;
  for (int64_t k = -radius; k <= radius; ++k) {
    const double v = sigma > 0 ? std::exp(-0.5 * double(k * k) / (sigma * sigma)) : 1.0;
    w[static_cast<std::size_t>(k + radius)] = v;
    sum += v;
  }
  for (double& v : w) v /= sum;
  return w;
}

// Index i mirrored into [0, n) about the borders, edge value repeated ("... 1 0 | 0 1 ... n-1 |
// n-1 n-2 ..."), for any i.
int64_t reflect(int64_t i, int64_t n) {
  const int64_t period = 2 * n;
  i %= period;
  if (i < 0) i += period;
  return i < n ? i : period - 1 - i;
}

// out[i * stride] = sum_k w[k + R] * in[reflect(i + k, n) * stride] for i in [0, n): a line of
// the grid smoothed with the kernel w of radius R.
void smooth_line(const double* in, double* out, int64_t n, int64_t stride,
                 const std::vector<double>& w) {
  const auto radius = static_cast<int64_t>(w.size() / 2);
  for (int64_t i = 0; i < n; ++i) {
    double acc = 0.0;
    if (i >= radius && i + radius < n) {
      const double* src = in + (i - radius) * stride;
      for (int64_t k = 0; k <= 2 * radius; ++k) acc += w[k] * src[k * stride];
    } else {
      for (int64_t k = -radius; k <= radius; ++k)
        acc += w[k + radius] * in[reflect(i + k, n) * stride];
    }
    out[i * stride] = acc;
  }
}

// Signal s on the a x b grid (row-major, node u * b + v): white noise from (seed, s), smoothed
// separably (along v, then along u) with `w`, reflecting at the borders, then standardised to
// mean 0 and standard deviation 1 over the grid (only centred when the grid is constant).
// `tmp` and `out` hold a * b values.
void make_signal(const ManifoldParams& p, const std::vector<double>& w, int64_t s, double* tmp,
                 double* out) {
  const int64_t a = p.a, b = p.b, ab = a * b;
  Rng rng(p.seed, kSignal, static_cast<uint64_t>(s));
  for (int64_t i = 0; i < ab; ++i) out[i] = rng.normal();
  for (int64_t u = 0; u < a; ++u) smooth_line(out + u * b, tmp + u * b, b, 1, w);
  for (int64_t v = 0; v < b; ++v) smooth_line(tmp + v, out + v, a, b, w);
  double mean = 0.0;
  for (int64_t i = 0; i < ab; ++i) mean += out[i];
  mean /= double(ab);
  double var = 0.0;
  for (int64_t i = 0; i < ab; ++i) var += (out[i] - mean) * (out[i] - mean);
  const double sd = std::sqrt(var / double(ab));
  const double scale = sd > 0 ? 1.0 / sd : 1.0;
  for (int64_t i = 0; i < ab; ++i) out[i] = (out[i] - mean) * scale;
}

}  // namespace

// Row i: cluster = floor(U * clusters) for the first uniform U of stream (seed, row, i); latent
// point = centre + cluster_std * N(0, I); x = M * latent (M: d x latent_dim, N(0, 1/latent_dim)
// entries, from the seed; M = I when latent_dim is 0 or d) + noise * N(0, I).
void generate_blobs(MPI_Comm comm, const BlobsParams& p, const std::string& path) {
  collective_check(comm,
                   p.n > 0 && p.d > 0 && p.clusters > 0 && p.latent_dim >= 0 &&
                       p.cluster_std >= 0 && p.center_spread >= 0 && p.noise >= 0,
                   "blobs: need n, d, clusters > 0, latent_dim >= 0 and non-negative "
                   "cluster_std, center_spread and noise");
  const int64_t latent = p.latent_dim > 0 ? p.latent_dim : p.d;
  const bool mapped = latent != p.d;
  const Partition part(p.n, comm_size(comm));
  const int rank = comm_rank(comm);
  const int64_t begin = part.begin(rank), rows = part.count(rank);
  const double dl = static_cast<double>(latent), dd = static_cast<double>(p.d);
  // The rows (float) and labels; the centres, the map and the latent points (double).
  check_allocation(comm,
                   static_cast<double>(rows) * (4.0 * dd + 8.0) +
                       8.0 * dl * (static_cast<double>(p.clusters) + (mapped ? dd : 0.0) +
                                   omp_get_max_threads()),
                   "blobs: " + std::to_string(p.n) + " x " + std::to_string(p.d) + " points (" +
                       std::to_string(p.clusters) + " clusters, latent dimension " +
                       std::to_string(latent) + ")");

  std::vector<float> x;
  std::vector<int64_t> labels;
  collectively(comm, [&] {
    std::vector<double> centres(static_cast<std::size_t>(p.clusters * latent));
    Rng crng(p.seed, kCentres, 0);
    for (double& c : centres) c = p.center_spread * (2.0 * crng.uniform() - 1.0);
    std::vector<double> mixing(mapped ? static_cast<std::size_t>(p.d * latent) : 0);
    Rng mrng(p.seed, kMixing, 0);
    for (double& m : mixing) m = mrng.normal() / std::sqrt(double(latent));

    x.resize(static_cast<std::size_t>(rows * p.d));
    labels.resize(static_cast<std::size_t>(rows));
    std::vector<double> z(static_cast<std::size_t>(omp_get_max_threads() * latent));
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      double* zr = z.data() + omp_get_thread_num() * latent;
      Rng rng(p.seed, kRow, static_cast<uint64_t>(begin + r));
      const int64_t c =
          std::min(static_cast<int64_t>(rng.uniform() * double(p.clusters)), p.clusters - 1);
      labels[r] = c;
      for (int64_t j = 0; j < latent; ++j)
        zr[j] = centres[c * latent + j] + p.cluster_std * rng.normal();
      float* xr = x.data() + r * p.d;
      for (int64_t i = 0; i < p.d; ++i) {
        double v = 0.0;
        if (mapped) {
          for (int64_t j = 0; j < latent; ++j) v += mixing[i * latent + j] * zr[j];
        } else {
          v = zr[i];
        }
        xr[i] = static_cast<float>(v + p.noise * rng.normal());
      }
    }
  });

  write_hdf5_atomically(comm, path, [&](const h5::File& f) {
    h5::write_2d(f, "/X", x, begin, p.n, p.d);
    h5::write_1d(f, "/labels", labels, begin, p.n);
    set_common_attrs(f, "blobs", p.seed);
    h5::set_attr(f, "/", "n", p.n);
    h5::set_attr(f, "/", "d", p.d);
    h5::set_attr(f, "/", "clusters", p.clusters);
    h5::set_attr(f, "/", "latent_dim", latent);
    h5::set_attr(f, "/", "cluster_std", p.cluster_std);
    h5::set_attr(f, "/", "center_spread", p.center_spread);
    h5::set_attr(f, "/", "noise", p.noise);
  });
}

// Rank r computes the signals of its block of Partition(signals, size) on the whole grid, then
// an all-to-all hands every rank all signals at its block of Partition(a * b, size) nodes.
void generate_manifold(MPI_Comm comm, const ManifoldParams& p, const std::string& path) {
  collective_check(comm, p.a > 0 && p.b > 0 && p.signals > 0 && p.smoothness >= 0,
                   "manifold: need a, b, signals > 0 and smoothness >= 0");
  collective_check(comm, p.smoothness <= static_cast<double>(std::max(p.a, p.b)),
                   "manifold: --smoothness must be at most the longer side of the grid (" +
                       std::to_string(std::max(p.a, p.b)) +
                       "): a wider kernel leaves every signal nearly constant");
  const int size = comm_size(comm), rank = comm_rank(comm);
  {
    const double ab = static_cast<double>(p.a) * static_cast<double>(p.b);
    const double rows = std::ceil(ab / size), mine = std::ceil(static_cast<double>(p.signals) / size);
    // Sent and received blocks and the rows (float); the smoothing scratch per thread (double).
    check_allocation(comm,
                     4.0 * (ab * mine + 2.0 * rows * static_cast<double>(p.signals)) +
                         16.0 * (ab * omp_get_max_threads() + rows),
                     "manifold: a " + std::to_string(p.a) + " x " + std::to_string(p.b) +
                         " grid with " + std::to_string(p.signals) + " signals");
  }
  const int64_t ab = p.a * p.b;
  const Partition nodes(ab, size), sigs(p.signals, size);
  const int64_t s0 = sigs.begin(rank), mine = sigs.count(rank);

  // send[q]: rows of rank q's nodes, each holding this rank's signals.
  std::vector<std::vector<float>> send(static_cast<std::size_t>(size));
  collectively(comm, [&] {
    for (int q = 0; q < size; ++q) send[q].resize(static_cast<std::size_t>(nodes.count(q) * mine));
    const std::vector<double> w = gaussian_kernel(p.smoothness);
    std::vector<double> scratch(static_cast<std::size_t>(omp_get_max_threads() * 2 * ab));
#pragma omp parallel for schedule(dynamic)
    for (int64_t j = 0; j < mine; ++j) {
      double* tmp = scratch.data() + omp_get_thread_num() * 2 * ab;
      double* sig = tmp + ab;
      make_signal(p, w, s0 + j, tmp, sig);
      for (int q = 0; q < size; ++q) {
        const int64_t qb = nodes.begin(q), qn = nodes.count(q);
        for (int64_t i = 0; i < qn; ++i) send[q][i * mine + j] = static_cast<float>(sig[qb + i]);
      }
    }
  });
  const std::vector<float> recv = alltoallv(comm, send);
  send.clear();

  const int64_t begin = nodes.begin(rank), rows = nodes.count(rank);
  std::vector<float> x;
  std::vector<int64_t> grid;
  collectively(comm, [&] {
    x.resize(static_cast<std::size_t>(rows * p.signals));
    int64_t at = 0;  // recv holds, per source rank q, rows x sigs.count(q) values
    for (int q = 0; q < size; ++q) {
      const int64_t qs = sigs.begin(q), qm = sigs.count(q);
      for (int64_t i = 0; i < rows; ++i) {
        std::copy_n(recv.begin() + at + i * qm, qm, x.begin() + i * p.signals + qs);
      }
      at += rows * qm;
    }
    grid.resize(static_cast<std::size_t>(2 * rows));
    for (int64_t i = 0; i < rows; ++i) {
      grid[2 * i] = (begin + i) / p.b;
      grid[2 * i + 1] = (begin + i) % p.b;
    }
  });

  write_hdf5_atomically(comm, path, [&](const h5::File& f) {
    h5::write_2d(f, "/X", x, begin, ab, p.signals);
    h5::write_2d(f, "/grid", grid, begin, ab, 2);
    set_common_attrs(f, "manifold", p.seed);
    h5::set_attr(f, "/", "a", p.a);
    h5::set_attr(f, "/", "b", p.b);
    h5::set_attr(f, "/", "signals", p.signals);
    h5::set_attr(f, "/", "smoothness", p.smoothness);
    h5::set_attr(f, "/", "boundary", std::string("reflect"));
  });
}

namespace {

// Inverse CDF of the density proportional to (x + i0)^(-beta) on [0, n): node floor(x).
struct PowerLawSampler {
  double i0, one_minus_beta, lo, span;
  int64_t n;
  PowerLawSampler(int64_t n_, double beta, double i0_) : i0(i0_), one_minus_beta(1.0 - beta), n(n_) {
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
  collective_check(comm,
                   p.n >= 2 && p.edges >= 0 && p.exponent > 2.0 && p.max_degree >= 0 &&
                       planted <= static_cast<double>(p.n) &&
                       (p.community_densities.size() == nc ||
                        (p.community_densities.size() == 1 && nc > 0) ||
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

}  // namespace

void generate_powerlaw_graph(MPI_Comm comm, const PowerlawGraphParams& p, const std::string& path) {
  check_powerlaw_params(comm, p);
  const size_t nc = p.community_sizes.size();
  const int size = comm_size(comm), rank = comm_rank(comm);
  const double beta = 1.0 / (p.exponent - 1.0);
  const double dmax = p.max_degree > 0 ? p.max_degree : std::sqrt(2.0 * double(p.edges));
  // i0 such that node 0 expects dmax: 2 * edges * cdf(1) = dmax (cdf(1) decreases with i0).
  double lo_i0 = 1e-9, hi_i0 = double(p.n);
  for (int it = 0; it < 200; ++it) {
    const double mid = std::sqrt(lo_i0 * hi_i0);
    const double d0 = 2.0 * double(p.edges) * PowerLawSampler(p.n, beta, mid).cdf(1.0);
    (d0 > dmax ? lo_i0 : hi_i0) = mid;
  }
  const PowerLawSampler sample(p.n, beta, std::sqrt(lo_i0 * hi_i0));
  // Permutation for community members.
  Rng prng(p.seed, kPermutation, 0);
  int64_t a = static_cast<int64_t>(prng.next() % uint64_t(p.n)) | 1;
  while (gcd64(a, p.n) != 1) a = (a + 2) % p.n;
  const int64_t b = static_cast<int64_t>(prng.next() % uint64_t(p.n));
  auto pi = [&](int64_t j) {
    return static_cast<int64_t>((static_cast<__int128>(a) * j + b) % p.n);
  };

  std::vector<DirectedEntry> entries;
  collectively(comm, [&] {
    const Partition ep(p.edges, size);
    entries.reserve(static_cast<size_t>(ep.count(rank)));
    for (int64_t e = ep.begin(rank); e < ep.end(rank); ++e) {
      Rng rng(p.seed, kEdge, static_cast<uint64_t>(e));
      const int64_t u = sample(rng.uniform()), v = sample(rng.uniform());
      entries.push_back({u, v, 1.0});
    }
    int64_t off = 0;
    for (size_t c = 0; c < nc; ++c) {
      const int64_t s = p.community_sizes[c];
      const double q = p.community_densities.size() == 1 ? p.community_densities[0]
                                                         : p.community_densities[c];
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
  });
  GraphInputReport rep;
  LocalCsr rows = symmetrize_entries(comm, p.n, std::move(entries), DuplicateRule::kMax, &rep);
  for (auto& w : rows.data) w = 1.0;

  // Planted community of each local node.
  std::vector<int64_t> community(static_cast<size_t>(rows.local_rows()), -1);
  {
    const int64_t ainv = inverse_mod(a, p.n);
    std::vector<int64_t> ends;
    int64_t off = 0;
    for (auto s : p.community_sizes) ends.push_back(off += s);
    for (int64_t r = 0; r < rows.local_rows(); ++r) {
      const int64_t node = rows.begin + r;
      const int64_t j = static_cast<int64_t>(
          (static_cast<__int128>(ainv) * ((node - b) % p.n + p.n)) % p.n);
      const auto it = std::upper_bound(ends.begin(), ends.end(), j);
      if (it != ends.end()) community[r] = it - ends.begin();
    }
  }
  std::string sizes, dens;
  for (size_t c = 0; c < nc; ++c) {
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

}  // namespace lsgl
