// The Python module's side of the commands' option tables (lsgl/cli/command_options.hpp); the
// parsers themselves live with their commands.
#include "lsgl/cli/command_options.hpp"

#include "lsgl/util/error.hpp"

namespace lsgl::cli {

void refuse_help_and_config(MPI_Comm comm, const std::vector<std::string>& args) {
  std::string refused;
  for (const std::string& word : args)
    if (word == "--help" || word == "--config") refused = word.substr(2);
  collective_check(comm, refused.empty(),
                   "'" + refused + "' is not an option here (every keyword is one)");
}

}  // namespace lsgl::cli
