// Attributes of output files (see attributes.hpp).
#include "lsgl/io/attributes.hpp"

#include "lsgl/util/mpi.hpp"
#include "lsgl/util/phase.hpp"
#include "lsgl/util/version.hpp"

namespace lsgl {

void set_attributes(const h5::File& f, const std::string& obj, const Attributes& attrs) {
  for (const auto& attr : attrs) {  // no structured binding: lambdas capture them from C++20
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
