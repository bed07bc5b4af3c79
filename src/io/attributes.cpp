// Attributes of output files (see attributes.hpp).
#include "lsgl/io/attributes.hpp"

#include <cstdint>
#include <string>

#include "lsgl/util/mpi.hpp"
#include "lsgl/util/phase.hpp"
#include "lsgl/util/version.hpp"

namespace lsgl {

namespace {

// Rank 0's attributes on every rank: HDF5 writes metadata collectively and expects the same
// values from every rank (a per-rank value, a time, once left the ranks in different barriers
// when the file was closed).
Attributes rank0_attributes(MPI_Comm comm, const Attributes& attrs) {
  std::string bytes;
  if (comm_rank(comm) == 0) {
    const auto put = [&bytes](const void* p, std::size_t n) {
      bytes.append(static_cast<const char*>(p), n);
    };
    for (const auto& [name, value] : attrs) {
      const std::uint64_t kind = value.index(), length = name.size();
      put(&kind, sizeof kind);
      put(&length, sizeof length);
      put(name.data(), name.size());
      if (const auto* d = std::get_if<double>(&value)) put(d, sizeof *d);
      if (const auto* i = std::get_if<std::int64_t>(&value)) put(i, sizeof *i);
      if (const auto* t = std::get_if<std::string>(&value)) {
        const std::uint64_t n = t->size();
        put(&n, sizeof n);
        put(t->data(), t->size());
      }
    }
  }
  std::uint64_t size = bytes.size();
  MPI_Bcast(&size, 1, MPI_UINT64_T, 0, comm);
  bytes.resize(size);
  MPI_Bcast(bytes.data(), static_cast<int>(size), MPI_CHAR, 0, comm);
  Attributes out;
  std::size_t at = 0;
  const auto get = [&](void* p, std::size_t n) {
    bytes.copy(static_cast<char*>(p), n, at);
    at += n;
  };
  while (at < bytes.size()) {
    std::uint64_t kind = 0, length = 0;
    get(&kind, sizeof kind);
    get(&length, sizeof length);
    std::string name(length, '\0');
    get(name.data(), length);
    if (kind == 0) {
      double d = 0;
      get(&d, sizeof d);
      out.emplace_back(name, d);
    } else if (kind == 1) {
      std::int64_t i = 0;
      get(&i, sizeof i);
      out.emplace_back(name, i);
    } else {
      std::uint64_t n = 0;
      get(&n, sizeof n);
      std::string t(n, '\0');
      get(t.data(), n);
      out.emplace_back(name, t);
    }
  }
  return out;
}

}  // namespace

void set_attributes(const h5::File& f, const std::string& obj, const Attributes& attrs) {
  for (const auto& attr : rank0_attributes(f.comm(), attrs)) {
    // no structured binding: lambdas capture them only from C++20
    const std::string& name = attr.first;
    std::visit([&](const auto& v) { h5::set_attr(f, obj, name, v); }, attr.second);
  }
}

Attributes provenance_attributes(MPI_Comm comm, const std::string& command_line,
                                 const std::string& configuration, const Attributes& inputs) {
  std::string time = utc_now();
  char buf[32] = {};
  time.copy(buf, sizeof buf - 1);
  MPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, comm);
  Attributes a = {{"lsgl_version", std::string(version())},
                  {"git_commit", std::string(git_commit())},
                  {"command_line", command_line},
                  {"configuration", configuration},
                  {"ranks", static_cast<std::int64_t>(comm_size(comm))},
                  {"utc_time", std::string(buf)}};
  a.insert(a.end(), inputs.begin(), inputs.end());
  return a;
}

}  // namespace lsgl
