#pragma once
// Options that belong to some methods (or solvers) only: given for none of the chosen ones,
// they are refused rather than silently ignored.
#include <algorithm>
#include <string>
#include <vector>

#include "lsgl/util/names.hpp"
#include "options.hpp"

namespace lsgl::cli {

// A group of option names (without --) and the choices (values of a Named enum) that read them.
template <class E>
struct OptionOwner {
  std::vector<std::string> options;
  std::vector<E> readers;
};

// Local. Throws std::invalid_argument naming the first of `options` given (on the command line
// or in --config): "--alpha1 is an option of --method dpcd, dpcd-0, not of --method lp" (`what`
// is "--method", `readers` "dpcd, dpcd-0", `chosen` "lp").
void refuse_given(const po::variables_map& vm, const std::vector<std::string>& options,
                  const std::string& what, const std::string& readers, const std::string& chosen);

// Local. Throws as refuse_given for the first option given that none of `chosen` reads.
template <class E>
void check_option_owners(const po::variables_map& vm, const std::vector<OptionOwner<E>>& owners,
                         const std::vector<E>& chosen, const std::string& what) {
  const auto join = [](const std::vector<E>& v, const char* sep) {
    std::string s;
    for (const E x : v) s += (s.empty() ? "" : sep) + std::string(name_of(x));
    return s;
  };
  for (const auto& owner : owners) {
    const bool read = std::any_of(chosen.begin(), chosen.end(), [&](E c) {
      return std::find(owner.readers.begin(), owner.readers.end(), c) != owner.readers.end();
    });
    if (!read) refuse_given(vm, owner.options, what, join(owner.readers, ", "), join(chosen, ","));
  }
}

}  // namespace lsgl::cli
