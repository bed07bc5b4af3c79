// `lsgl generate`: options -> synthetic data set.
#include <cstdio>
#include <sstream>

#include "commands_impl.hpp"
#include "lsgl/cli/choices.hpp"
#include "lsgl/io/output_format.hpp"
#include "lsgl/synth/generate.hpp"
#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "options.hpp"

namespace lsgl::cli {

namespace {

enum class Kind { kBlobs, kManifold, kPowerlawGraph };
constexpr Named<Kind> kKindNames[] = {{Kind::kBlobs, "blobs"},
                                      {Kind::kManifold, "manifold"},
                                      {Kind::kPowerlawGraph, "powerlaw-graph"}};
constexpr const auto& names(Kind) { return kKindNames; }

}  // namespace

int generate_command(MPI_Comm comm, const std::vector<std::string>& args) {
  std::string kind, output;
  BlobsParams b;
  ManifoldParams m;
  PowerlawGraphParams g;
  std::string communities, community_density;
  OptionGroups groups(
      "usage: [mpirun -n P] lsgl generate --kind blobs|manifold|powerlaw-graph --output FILE.h5 "
      "[options]\n");
  groups.group("kind", "Kind and output").add_options()
      ("kind", choice<Kind>(&kind, "kind")->default_value("blobs"), "blobs, manifold or powerlaw-graph")
      ("output", po::value(&output), "output HDF5 file (/X, plus /labels or /grid)")
      ("seed", po::value(&b.seed)->default_value(1), "random seed");
  groups.group("blobs", "Blobs").add_options()
      ("n", po::value(&b.n)->default_value(b.n), "blobs: number of points")
      ("d", po::value(&b.d)->default_value(b.d), "blobs: number of features")
      ("clusters", po::value(&b.clusters)->default_value(b.clusters), "blobs: number of clusters")
      ("latent-dim", po::value(&b.latent_dim)->default_value(b.latent_dim),
       "blobs: clusters live in a latent space of this dimension, mapped linearly to d "
       "features (0: latent = d)")
      ("cluster-std", real(&b.cluster_std),
       "blobs: standard deviation within a cluster (latent space)")
      ("center-spread", real(&b.center_spread),
       "blobs: centres uniform in [-spread, spread] per latent dimension")
      ("noise", real(&b.noise),
       "blobs: standard deviation of the noise added to each feature");
  groups.group("manifold", "Manifold").add_options()
      ("a", po::value(&m.a)->default_value(m.a), "manifold: grid rows")
      ("b", po::value(&m.b)->default_value(m.b), "manifold: grid columns")
      ("signals", po::value(&m.signals)->default_value(m.signals),
       "manifold: number of smooth signals observed on the grid (features)")
      ("smoothness", real(&m.smoothness),
       "manifold: width of the Gaussian smoothing kernel, in grid steps");
  groups.group("powerlaw-graph", "Power-law graph").add_options()
      ("edges", po::value(&g.edges)->default_value(g.edges),
       "powerlaw-graph: background edge samples (Chung-Lu; loops and repeats dropped)")
      ("exponent", real(&g.exponent),
       "powerlaw-graph: degree exponent (> 2)")
      ("max-degree", po::value(&g.max_degree)->default_value(0.0),
       "powerlaw-graph: expected largest degree (0: sqrt(2 * edges))")
      ("communities", po::value(&communities)->default_value(""),
       "powerlaw-graph: sizes of the planted communities, comma separated")
      ("community-density", po::value(&community_density)->default_value("0.5"),
       "powerlaw-graph: edge probability inside each community (one value, or one per "
       "community)");
  const Parsed p = parse(comm, args, groups);
  if (p.help) {
    print_help(comm, groups, p);
    return 0;
  }
  Kind k = Kind::kBlobs;
  lsgl::collectively(comm, [&] { k = parse_choice<Kind>("kind", kind); });
  collective_check(comm, !output.empty(), "--output is required");
  lsgl::collectively(comm, [&] { output_format("--output", output, {OutputFormat::kHdf5}); });
  check_writable(comm, output);
  m.seed = b.seed;
  if (k == Kind::kBlobs) {
    collective_check(comm, b.n >= 1 && b.d >= 1 && b.clusters >= 1 && b.latent_dim >= 0,
                     "--n, --d and --clusters must be at least 1");
    generate_blobs(comm, b, output);
  } else if (k == Kind::kManifold) {
    collective_check(comm, m.a >= 1 && m.b >= 1 && m.signals >= 1,
                     "--a, --b and --signals must be at least 1");
    generate_manifold(comm, m, output);
  } else {
    g.n = b.n;
    g.seed = b.seed;
    lsgl::collectively(comm, [&] {
      std::stringstream cs(communities), ds(community_density);
      for (std::string item; std::getline(cs, item, ',');)
        if (!item.empty()) g.community_sizes.push_back(std::stoll(item));
      for (std::string item; std::getline(ds, item, ',');)
        if (!item.empty()) g.community_densities.push_back(std::stod(item));
      if (g.community_sizes.empty()) g.community_densities.clear();
    });
    generate_powerlaw_graph(comm, g, output);
  }
  if (comm_rank(comm) == 0) std::printf("wrote %s\n", output.c_str());
  return 0;
}

}  // namespace lsgl::cli
