// Options of some methods only (see option_owners.hpp).
#include "option_owners.hpp"

#include <stdexcept>

namespace lsgl::cli {

void refuse_given(const po::variables_map& vm, const std::vector<std::string>& options,
                  const std::string& what, const std::string& readers, const std::string& chosen) {
  for (const auto& name : options)
    if (vm.count(name) && !vm[name].defaulted())
      throw std::invalid_argument("--" + name + " is an option of " + what + " " + readers +
                                  ", not of " + what + " " + chosen);
}

}  // namespace lsgl::cli
