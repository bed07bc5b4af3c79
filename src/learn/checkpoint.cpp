#include "lsgl/learn/checkpoint.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "lsgl/io/h5.hpp"
#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/error.hpp"

namespace lsgl {

namespace {

const char* kFormat = "lsgl-checkpoint-1";

std::uint64_t mix(std::uint64_t h, std::uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 31);
}

std::uint64_t bits(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// Collective. Checksum of the stored arrays, independent of how they are split over ranks: the
// sum (mod 2^64) of a hash of (position, values) per edge and per node.
std::uint64_t checksum(MPI_Comm comm, std::int64_t edge_offset, const std::vector<std::int64_t>& i,
                       const std::vector<std::int64_t>& j, const std::vector<double>& z,
                       const std::vector<double>& w, std::int64_t node_offset,
                       const std::vector<double>& v) {
  std::uint64_t sum = 0;
  for (std::size_t e = 0; e < i.size(); ++e)
    sum += mix(mix(mix(mix(mix(1, edge_offset + e), i[e]), j[e]), bits(z[e])), bits(w[e]));
  for (std::size_t t = 0; t < v.size(); ++t) sum += mix(mix(2, node_offset + t), bits(v[t]));
  std::uint64_t total = 0;
  MPI_Allreduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
  return total;
}

std::string hex(std::uint64_t x) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
  return buf;
}

}  // namespace

void write_checkpoint(const std::string& path, const EdgeSet& edges, const SolverState& state,
                      const CheckpointInfo& info) {
  MPI_Comm comm = edges.comm();
  // The previous checkpoint becomes a hard link FILE.prev, then the new one atomically replaces
  // FILE: at every moment FILE is a complete checkpoint.
  write_atomically(comm, path, [&](const std::string& tmp) {
    h5::File f = h5::create(comm, tmp);
    h5::ensure_group(f, "/checkpoint");
    const auto pairs = edges.global_pairs();
    std::vector<std::int64_t> i(pairs.size()), j(pairs.size());
    for (std::size_t e = 0; e < pairs.size(); ++e) {
      i[e] = pairs[e].first;
      j[e] = pairs[e].second;
    }
    const std::int64_t local = edges.local_edges();
    const std::int64_t offset = exscan_sum(comm, local), total = edges.global_edges();
    h5::write_1d(f, "/checkpoint/i", i, offset, total);
    h5::write_1d(f, "/checkpoint/j", j, offset, total);
    h5::write_1d(f, "/checkpoint/z", edges.z(), offset, total);
    h5::write_1d(f, "/checkpoint/w", state.w, offset, total);
    const std::vector<double> v = edges.to_node_order(state.v);
    h5::write_1d(f, "/checkpoint/v", v, edges.first_node(), edges.n());
    h5::set_attr(f, "/checkpoint", "format", std::string(kFormat));
    h5::set_attr(f, "/checkpoint", "key", info.key);
    h5::set_attr(f, "/checkpoint", "theta", info.theta);
    h5::set_attr(f, "/checkpoint", "theta_eq18", info.theta_eq18);
    h5::set_attr(f, "/checkpoint", "recall", info.recall);
    h5::set_attr(f, "/checkpoint", "n", edges.n());
    h5::set_attr(f, "/checkpoint", "edges", total);
    h5::set_attr(f, "/checkpoint", "iteration", std::int64_t(state.iteration));
    h5::set_attr(f, "/checkpoint", "rescales", std::int64_t(state.rescales));
    h5::set_attr(f, "/checkpoint", "dual_scale", state.dual_scale);
    h5::set_attr(f, "/checkpoint", "checksum",
                 hex(checksum(comm, offset, i, j, edges.z(), state.w, edges.first_node(), v)));
    if (!state.mu.empty()) {  // fdpg's extrapolated dual and momentum
      const std::vector<double> mu = edges.to_node_order(state.mu);
      h5::write_1d(f, "/checkpoint/mu", mu, edges.first_node(), edges.n());
      h5::set_attr(f, "/checkpoint", "momentum", state.momentum);
      h5::set_attr(f, "/checkpoint", "checksum_mu",
                   hex(checksum(comm, 0, {}, {}, {}, {}, edges.first_node(), mu)));
    }
    f.close();
  }, AtomicWriteOptions{true});
}

LoadedCheckpoint read_checkpoint(MPI_Comm comm, const std::string& path) {
  h5::File f = h5::open_read(comm, path);
  std::string format;
  collectively(comm, [&] {
    try {
      format = h5::get_attr_string(f, "/checkpoint", "format");
    } catch (const std::exception&) {
      format.clear();
    }
  });
  collective_check(comm, format == kFormat, "'" + path + "' is not an lsgl checkpoint");
  CheckpointInfo info;
  info.key = h5::get_attr_string(f, "/checkpoint", "key");
  info.theta = h5::get_attr_double(f, "/checkpoint", "theta");
  if (h5::has_attr(f, "/checkpoint", "theta_eq18"))  // absent from older checkpoints
    info.theta_eq18 = h5::get_attr_double(f, "/checkpoint", "theta_eq18");
  info.recall = h5::get_attr_double(f, "/checkpoint", "recall");
  const std::int64_t n = h5::get_attr_int(f, "/checkpoint", "n");
  const std::int64_t total = h5::get_attr_int(f, "/checkpoint", "edges");
  collective_check(comm,
                   n > 0 && h5::length_1d(f, "/checkpoint/v") == n &&
                       h5::length_1d(f, "/checkpoint/i") == total &&
                       h5::length_1d(f, "/checkpoint/w") == total,
                   "checkpoint '" + path + "' is inconsistent (truncated?)");

  // Each rank reads a contiguous share of the edges; from_pairs sends them to their owners.
  const Partition share(total, comm_size(comm));
  const int rank = comm_rank(comm);
  const std::int64_t off = share.begin(rank), cnt = share.count(rank);
  const auto i = h5::read_1d<std::int64_t>(f, "/checkpoint/i", off, cnt);
  const auto j = h5::read_1d<std::int64_t>(f, "/checkpoint/j", off, cnt);
  const auto z = h5::read_1d<double>(f, "/checkpoint/z", off, cnt);
  const auto w = h5::read_1d<double>(f, "/checkpoint/w", off, cnt);
  bool ok = true;
  std::vector<EdgeEntry> pairs(static_cast<std::size_t>(cnt));
  for (std::int64_t e = 0; e < cnt; ++e) {
    // (w is the iterate, which may be slightly negative before convergence.)
    ok = ok && i[e] >= 0 && i[e] < j[e] && j[e] < n && std::isfinite(z[e]) && z[e] >= 0 &&
         std::isfinite(w[e]);
    pairs[e] = {i[e], j[e], z[e], w[e]};
  }
  collective_check(comm, ok, "checkpoint '" + path + "' holds invalid edges");

  const Partition nodes(n, comm_size(comm));
  const auto v = h5::read_1d<double>(f, "/checkpoint/v", nodes.begin(rank), nodes.count(rank));
  const std::string stored = h5::get_attr_string(f, "/checkpoint", "checksum");
  collective_check(comm, hex(checksum(comm, off, i, j, z, w, nodes.begin(rank), v)) == stored,
                   "checkpoint '" + path + "' is corrupted (checksum mismatch)");

  SolverState state;
  EdgeSet edges = EdgeSet::from_pairs(comm, n, std::move(pairs), &state.w);
  state.v = edges.to_slot_order(v);
  state.iteration = static_cast<int>(h5::get_attr_int(f, "/checkpoint", "iteration"));
  state.rescales = static_cast<int>(h5::get_attr_int(f, "/checkpoint", "rescales"));
  state.dual_scale = h5::get_attr_double(f, "/checkpoint", "dual_scale");
  if (h5::has_attr(f, "/checkpoint", "checksum_mu")) {
    collective_check(comm, h5::length_1d(f, "/checkpoint/mu") == n,
                     "checkpoint '" + path + "' is inconsistent (truncated?)");
    state.mu = h5::read_1d<double>(f, "/checkpoint/mu", nodes.begin(rank), nodes.count(rank));
    state.momentum = h5::get_attr_double(f, "/checkpoint", "momentum");
    collective_check(comm,
                     hex(checksum(comm, 0, {}, {}, {}, {}, nodes.begin(rank), state.mu)) ==
                         h5::get_attr_string(f, "/checkpoint", "checksum_mu"),
                     "checkpoint '" + path + "' is corrupted (checksum mismatch)");
    state.mu = edges.to_slot_order(state.mu);
  }
  // The parameters are outside the checksums: a resume needs them in range.
  collective_check(comm,
                   std::isfinite(info.theta) && info.theta > 0 && std::isfinite(info.theta_eq18) &&
                       info.theta_eq18 >= 0 &&
                       (info.recall == -1.0 || (info.recall >= 0 && info.recall <= 1)) &&
                       state.iteration >= 0 && state.rescales >= 0,
                   "checkpoint '" + path + "' holds invalid parameters (theta, recall or counts)");
  bool v_ok = state.dual_scale > 0 && std::isfinite(state.dual_scale) &&
              std::isfinite(state.momentum) && state.momentum >= 1.0;
  for (double x : state.v) v_ok = v_ok && std::isfinite(x);
  for (double x : state.mu) v_ok = v_ok && std::isfinite(x);
  collective_check(comm, v_ok, "checkpoint '" + path + "' holds invalid dual values");
  return LoadedCheckpoint{info, std::move(edges), std::move(state)};
}

}  // namespace lsgl
