// Options of some methods only (see option_owners.hpp).
#include "option_owners.hpp"

#include <algorithm>
#include <stdexcept>

namespace lsgl::cli {

void check_option_owners(const po::variables_map& vm, const OptionOwners& owners,
                         const std::vector<std::string>& chosen, const std::string& what) {
  auto join = [](const std::vector<std::string>& v, const char* sep) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
    return s;
  };
  for (const auto& [options, readers] : owners)
    for (const auto& name : options) {
      if (!vm.count(name) || vm[name].defaulted()) continue;
      const bool read = std::any_of(chosen.begin(), chosen.end(), [&](const std::string& c) {
        return std::find(readers.begin(), readers.end(), c) != readers.end();
      });
      if (!read)
        throw std::invalid_argument("--" + name + " is an option of " + what + " " +
                                    join(readers, ", ") + ", not of " + what + " " +
                                    join(chosen, ","));
    }
}

}  // namespace lsgl::cli
