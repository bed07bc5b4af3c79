#include "lsgl/learn/checkpoint.hpp"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "lsgl/io/h5.hpp"
#include "lsgl/util/error.hpp"

namespace lsgl {

namespace {
const char* kFormat = "lsgl-checkpoint-1";
}  // namespace

void write_checkpoint(const std::string& path, const EdgeSet& edges, const SolverState& state,
                      const CheckpointInfo& info) {
  MPI_Comm comm = edges.comm();
  const std::string tmp = path + ".partial";
  const int rank = comm_rank(comm);
  try {
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
    h5::write_1d(f, "/checkpoint/v", state.v, edges.first_node(), edges.n());
    h5::set_attr(f, "/checkpoint", "format", std::string(kFormat));
    h5::set_attr(f, "/checkpoint", "key", info.key);
    h5::set_attr(f, "/checkpoint", "theta", info.theta);
    h5::set_attr(f, "/checkpoint", "recall", info.recall);
    h5::set_attr(f, "/checkpoint", "n", edges.n());
    h5::set_attr(f, "/checkpoint", "edges", total);
    h5::set_attr(f, "/checkpoint", "iteration", std::int64_t(state.iteration));
    h5::set_attr(f, "/checkpoint", "rescales", std::int64_t(state.rescales));
    h5::set_attr(f, "/checkpoint", "dual_scale", state.dual_scale);
    f.close();
  } catch (...) {
    if (rank == 0) std::remove(tmp.c_str());
    throw;
  }
  std::string message;
  if (rank == 0) {
    const std::string prev = path + ".prev";
    if (access(path.c_str(), F_OK) == 0 && std::rename(path.c_str(), prev.c_str()) != 0)
      message = "cannot keep the previous checkpoint as '" + prev + "': " + std::strerror(errno);
    else if (std::rename(tmp.c_str(), path.c_str()) != 0)
      message = "cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(errno);
  }
  collective_check(comm, message.empty(), message);
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
    ok = ok && i[e] >= 0 && i[e] < j[e] && j[e] < n && std::isfinite(z[e]) && std::isfinite(w[e]);
    pairs[e] = {i[e], j[e], z[e], w[e]};
  }
  collective_check(comm, ok, "checkpoint '" + path + "' holds invalid edges");

  SolverState state;
  EdgeSet edges = EdgeSet::from_pairs(comm, n, std::move(pairs), &state.w);
  state.v = h5::read_1d<double>(f, "/checkpoint/v", edges.first_node(), edges.local_nodes());
  state.iteration = static_cast<int>(h5::get_attr_int(f, "/checkpoint", "iteration"));
  state.rescales = static_cast<int>(h5::get_attr_int(f, "/checkpoint", "rescales"));
  state.dual_scale = h5::get_attr_double(f, "/checkpoint", "dual_scale");
  bool v_ok = state.dual_scale > 0;
  for (double x : state.v) v_ok = v_ok && std::isfinite(x);
  collective_check(comm, v_ok, "checkpoint '" + path + "' holds invalid dual values");
  return LoadedCheckpoint{info, std::move(edges), std::move(state)};
}

}  // namespace lsgl
