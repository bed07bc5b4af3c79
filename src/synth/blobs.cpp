// Gaussian blobs (see generate.hpp).
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
using synth::kCentres;
using synth::kMixing;
using synth::kRow;
using synth::Rng;
using synth::set_common_attrs;

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
  check_allocation(
      comm,
      static_cast<double>(rows) * (4.0 * dd + 8.0) +
          8.0 * dl *
              (static_cast<double>(p.clusters) + (mapped ? dd : 0.0) + omp_get_max_threads()),
      "blobs: " + std::to_string(p.n) + " x " + std::to_string(p.d) + " points (" +
          std::to_string(p.clusters) + " clusters, latent dimension " + std::to_string(latent) +
          ")");

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

}  // namespace lsgl
