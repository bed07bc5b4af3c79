// The manifold set-up: smooth random signals on a grid (see generate.hpp).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "lsgl/io/h5.hpp"
#include "lsgl/synth/generate.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/memory.hpp"
#include "lsgl/util/mpi.hpp"
#include "rng.hpp"

namespace lsgl {

using std::int64_t;
using std::uint64_t;
using synth::kSignal;
using synth::Rng;
using synth::set_common_attrs;

namespace {

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
    const double rows = std::ceil(ab / size),
                 mine = std::ceil(static_cast<double>(p.signals) / size);
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

}  // namespace lsgl
