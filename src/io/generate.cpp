// Synthetic data sets (see generate.hpp). All randomness comes from counter-based splitmix64
// streams keyed by (seed, purpose, index), so every value depends on the seed and its own index
// only: the output is identical for any number of ranks or OpenMP threads.
#include "lsgl/io/generate.hpp"

#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "lsgl/io/h5.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {
namespace {

using std::int64_t;
using std::uint64_t;

// Stream purposes.
constexpr uint64_t kCentres = 1, kMixing = 2, kRow = 3, kSignal = 4;

// The splitmix64 output function (a bijection of 64-bit words).
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A splitmix64 sequence started from a hash of (seed, purpose, index); normals by Box-Muller.
// Portable: unlike std:: distributions it gives the same numbers with every standard library.
class Rng {
 public:
  Rng(uint64_t seed, uint64_t purpose, uint64_t index)
      : state_(mix(mix(mix(seed + 0x9e3779b97f4a7c15ULL) ^ purpose) ^ index)) {}
  uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return mix(state_);
  }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
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
  uint64_t state_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

// Collective. Runs write(file) on `path + ".tmp"`, closes it and renames it to `path`. On
// failure the temporary file is removed and every rank throws CollectiveError.
template <class Fn>
void write_atomically(MPI_Comm comm, const std::string& path, Fn&& write) {
  const std::string tmp = path + ".tmp";
  const bool root = comm_rank(comm) == 0;
  try {
    h5::File f = h5::create(comm, tmp);
    write(f);
    f.close();
  } catch (const CollectiveError&) {
    if (root) std::remove(tmp.c_str());  // the file was closed on unwinding
    throw;
  }
  MPI_Barrier(comm);
  bool ok = true;
  std::string message;
  if (root && std::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    message = "cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(errno);
    std::remove(tmp.c_str());
  }
  collective_check(comm, ok, message);
}

void set_common_attrs(const h5::File& f, const std::string& kind, uint64_t seed) {
  h5::set_attr(f, "/", "kind", kind);
  h5::set_attr(f, "/", "seed", seed);
  h5::set_attr(f, "/", "generator", std::string("lsgl ") + LSGL_VERSION);
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

  write_atomically(comm, path, [&](const h5::File& f) {
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
  const int size = comm_size(comm), rank = comm_rank(comm);
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

  write_atomically(comm, path, [&](const h5::File& f) {
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

}  // namespace lsgl
