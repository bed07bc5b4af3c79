#pragma once
// Synthetic data sets written to HDF5 (dataset /X float32 n x d, /labels int64 when there are
// labels). Rows are generated from (seed, row index) only, so the file does not depend on the
// number of ranks.
#include <mpi.h>

#include <cstdint>
#include <string>

namespace lsgl {

// Gaussian blobs: `clusters` centres in a latent space of dimension `latent_dim` (0 means d),
// points = centre + N(0, cluster_std^2) in latent space, mapped linearly to d features
// (identity when latent_dim == d), plus N(0, noise^2) per feature. Labels = cluster ids.
struct BlobsParams {
  std::int64_t n = 10000;
  std::int64_t d = 10;
  std::int64_t clusters = 10;
  std::int64_t latent_dim = 0;
  double cluster_std = 1.0;
  double center_spread = 5.0;
  double noise = 0.0;
  std::uint64_t seed = 1;
};

// The paper's manifold set-up: an a x b grid whose nodes are observed through s smooth random
// signals (white noise smoothed by a Gaussian kernel of width `smoothness` grid steps, then
// standardised). Node (u, v) is row u * b + v; /X is (a*b) x s; /grid stores (u, v) per row.
struct ManifoldParams {
  std::int64_t a = 64;
  std::int64_t b = 64;
  std::int64_t signals = 1920;
  double smoothness = 3.0;
  std::uint64_t seed = 1;
};

// Collective. Write to `path` (temporary name, renamed on success).
void generate_blobs(MPI_Comm comm, const BlobsParams& p, const std::string& path);
void generate_manifold(MPI_Comm comm, const ManifoldParams& p, const std::string& path);

}  // namespace lsgl
