// A learned graph in a copy of an AnnData file (see anndata_export.hpp).
#include "lsgl/graph/anndata_export.hpp"

#include <filesystem>
#include <variant>

#include "lsgl/io/h5.hpp"
#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

namespace {

// Collective. anndata's encoding attributes on `obj`.
void set_encoding(const h5::File& f, const std::string& obj, const std::string& type,
                  const std::string& version) {
  h5::set_attr(f, obj, "encoding-type", type);
  h5::set_attr(f, obj, "encoding-version", version);
}

// Collective. The group `path` as an anndata dict (made if missing; an existing one is kept).
void ensure_dict(const h5::File& f, const std::string& path) {
  if (h5::object_kind(f, path) == h5::ObjectKind::kGroup) return;
  h5::ensure_group(f, path);
  set_encoding(f, path, "dict", "0.1.0");
}

// Collective. One value of uns as anndata writes a scalar.
void write_uns_value(const h5::File& f, const std::string& name, const AttrValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) {
    h5::write_scalar(f, name, *s);
    set_encoding(f, name, "string", "0.2.0");
    return;
  }
  if (const auto* i = std::get_if<std::int64_t>(&value))
    h5::write_scalar(f, name, *i);
  else
    h5::write_scalar(f, name, std::get<double>(value));
  set_encoding(f, name, "numeric-scalar", "0.2.0");
}

// Collective. This rank's rows of one n x n CSR matrix as an anndata csr_matrix group.
void write_csr_group(const h5::File& f, const std::string& group, const LocalCsr& m,
                     const std::vector<double>& data) {
  h5::ensure_group(f, group);
  set_encoding(f, group, "csr_matrix", "0.1.0");
  h5::set_attr(f, group, "shape", std::vector<std::int64_t>{m.n, m.n});
  const GlobalIndptr g = global_indptr(f.comm(), m);
  h5::write_1d(f, group + "/data", data, g.nnz_offset, g.nnz);
  h5::write_1d(f, group + "/indices", m.indices, g.nnz_offset, g.nnz);
  h5::write_1d(f, group + "/indptr", g.slice, m.begin, m.n + 1);
}

}  // namespace

NeighborsKeys neighbors_keys(const std::string& key_added) {
  if (key_added.empty()) return {"neighbors", "connectivities", "distances"};
  return {key_added, key_added + "_connectivities", key_added + "_distances"};
}

std::int64_t anndata_obs_count(MPI_Comm comm, const std::string& path) {
  h5::File f = h5::open_read(comm, path);
  const bool has_obs = h5::object_kind(f, "/obs") == h5::ObjectKind::kGroup &&
                       h5::has_attr(f, "/obs", "_index");
  collective_check(comm, has_obs,
                   "'" + path + "' is not an AnnData file (no /obs group with an _index "
                   "attribute): --write-anndata adds the graph to a copy of an .h5ad input");
  const std::string index = h5::get_attr_string(f, "/obs", "_index");
  return h5::length_1d(f, "/obs/" + index);
}

void write_anndata_neighbors(MPI_Comm comm, const std::string& input, const std::string& output,
                             const LocalCsr& w, const EdgeDistances& distances,
                             const NeighborsKeys& keys, const Attributes& params) {
  check_distances(comm, w, distances);
  write_atomically(comm, output, [&](const std::string& tmp) {
    collectively(comm, [&] {
      if (comm_rank(comm) == 0)
        std::filesystem::copy_file(input, tmp, std::filesystem::copy_options::overwrite_existing);
    });
    h5::File f = h5::open_write(comm, tmp);
    ensure_dict(f, "/obsp");
    ensure_dict(f, "/uns");
    const std::string conn = "/obsp/" + keys.connectivities, dist = "/obsp/" + keys.distances;
    const std::string uns = "/uns/" + keys.uns;
    for (const std::string& name : {conn, dist, uns}) h5::remove(f, name);
    write_csr_group(f, conn, w, w.data);
    write_csr_group(f, dist, w, distances.values);
    ensure_dict(f, uns);
    write_uns_value(f, uns + "/connectivities_key", keys.connectivities);
    write_uns_value(f, uns + "/distances_key", keys.distances);
    ensure_dict(f, uns + "/params");
    for (const auto& [name, value] : params) write_uns_value(f, uns + "/params/" + name, value);
    f.close();
  });
}

}  // namespace lsgl
