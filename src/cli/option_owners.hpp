#pragma once
// Options that belong to some methods (or solvers) only: given for none of the chosen ones,
// they are refused rather than silently ignored.
#include <string>
#include <utility>
#include <vector>

#include "options.hpp"

namespace lsgl::cli {

// Groups of option names (without --) and the choices that read them.
using OptionOwners = std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>>;

// Local. Throws std::invalid_argument naming the first option given (on the command line or in
// --config) that none of `chosen` reads: "--alpha1 is an option of --method dpcd, dpcd-0, not of
// --method lp" (`what` is "--method" there).
void check_option_owners(const po::variables_map& vm, const OptionOwners& owners,
                         const std::vector<std::string>& chosen, const std::string& what);

}  // namespace lsgl::cli
