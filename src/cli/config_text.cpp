// Config file text (see options.hpp); apart from options.cpp so that it builds without MPI
// (tests/fuzz).
#include <sstream>

#include "options.hpp"

namespace lsgl::cli {

po::parsed_options parse_config_text(const std::string& text, const po::options_description& desc) {
  std::istringstream in(text);
  return po::parse_config_file(in, desc, false);
}

}  // namespace lsgl::cli
