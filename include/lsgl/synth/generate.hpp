#pragma once
// Synthetic data sets (`lsgl generate`; src/synth/, one file per generator) written to HDF5
// (dataset /X float32 n x d, /labels int64 when there are labels). Rows are generated from
// (seed, row index) only, so the file does not depend on the number of ranks.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lsgl {

// Gaussian blobs: `clusters` centres in a latent space of dimension `latent_dim` (0 means d),
// points = centre + N(0, cluster_std^2) in latent space, mapped linearly to d features
// (identity when latent_dim == d), plus N(0, noise^2) per feature. Labels = cluster ids.
// Centres are uniform in [-center_spread, center_spread]^latent_dim and the d x latent_dim map
// has N(0, 1/latent_dim) entries, both drawn from the seed alone; the cluster of row i is drawn
// uniformly from the random stream of (seed, i). Attributes on "/": kind = "blobs", n, d,
// clusters, latent_dim, cluster_std, center_spread, noise, seed, generator.
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
// The kernel is truncated at 4 * smoothness and the grid is mirrored at its borders ("reflect");
// each signal is standardised to mean 0 and standard deviation 1 over the whole grid.
// Attributes on "/": kind = "manifold", a, b, signals, smoothness, seed, boundary, generator.
struct ManifoldParams {
  std::int64_t a = 64;
  std::int64_t b = 64;
  std::int64_t signals = 1920;
  double smoothness = 3.0;
  std::uint64_t seed = 1;
};

// A Chung-Lu power-law graph with planted dense communities, written in our HDF5 graph format
// (/graph/indptr, /graph/indices, /graph/data = 1.0, /graph/degree) plus /planted/community
// (int64 per node: the index of its planted community, -1 for none).
//  - Background: `edges` edge samples; each endpoint is drawn independently with probability
//    proportional to (i + i0)^(-1/(exponent-1)) (a continuous inverse CDF, then floor), i0
//    chosen so that node 0 expects `max_degree` (0: sqrt(2 * edges)). Expected degrees then
//    follow a power law with this exponent; self-loops and repeats are dropped (so slightly
//    fewer than `edges` edges remain).
//  - Communities: community c has community_sizes[c] members, each pair linked with probability
//    community_densities[c] (one value: the same for all). Members are the nodes
//    pi(o_c), ..., pi(o_c + size - 1), o_c the sum of the sizes before, under the permutation
//    pi(j) = (a j + b) mod n drawn from the seed, so they are spread over all degrees.
// Edge sample e is drawn from the stream (seed, e), community rows from (seed, c, member), so the
// graph does not depend on the number of ranks.
struct PowerlawGraphParams {
  std::int64_t n = 100000;
  std::int64_t edges = 1000000;
  double exponent = 2.3;
  double max_degree = 0.0;
  std::vector<std::int64_t> community_sizes;
  std::vector<double> community_densities;
  std::uint64_t seed = 1;
};

// Collective. Write to `path` (through write_atomically: a unique temporary file renamed on
// success and removed on failure). Invalid parameters or I/O failures throw CollectiveError on
// every rank.
void generate_blobs(MPI_Comm comm, const BlobsParams& p, const std::string& path);
void generate_manifold(MPI_Comm comm, const ManifoldParams& p, const std::string& path);
void generate_powerlaw_graph(MPI_Comm comm, const PowerlawGraphParams& p, const std::string& path);

}  // namespace lsgl
