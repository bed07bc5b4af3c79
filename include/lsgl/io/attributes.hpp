#pragma once
// Attributes of output files: the values (double, int64, string) a writer puts on a group, and
// the provenance every output file carries on its root group, built in one place.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "lsgl/io/h5.hpp"

namespace lsgl {

using AttrValue = std::variant<double, std::int64_t, std::string>;
using Attributes = std::vector<std::pair<std::string, AttrValue>>;

// Collective. Sets rank 0's attributes on `obj` (a group, a dataset or "/"): every rank writes
// the same values, whatever it passed (HDF5 needs identical metadata from every rank).
void set_attributes(const h5::File& f, const std::string& obj, const Attributes& attrs);

// Collective. The provenance of an output: lsgl_version, git_commit, command_line,
// configuration (the effective options), ranks (the size of `comm`), utc_time (rank 0's clock,
// the same string on every rank), then `inputs` (input file names and what was read from
// them), in this order.
Attributes provenance_attributes(MPI_Comm comm, const std::string& command_line,
                                 const std::string& configuration, const Attributes& inputs);

}  // namespace lsgl
