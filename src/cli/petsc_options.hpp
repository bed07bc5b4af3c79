#pragma once
// Single-dash options go to PETSc; a typo of an lsgl option (`-k 5` for `--k 5`) or an option
// PETSc never read must not pass silently.
#include <mpi.h>

#include <boost/program_options.hpp>
#include <string>

namespace lsgl::cli {

// Local. Throws std::runtime_error ("'-k' is not an option: did you mean --k? ...") when the
// single-dash word `word` names one of `desc`'s long options ('_' read as '-').
void check_single_dash_option(const std::string& word,
                              const boost::program_options::options_description& desc);

}  // namespace lsgl::cli
