// libFuzzer target: config file text (src/cli/options.hpp store_config_text) against options of
// every value type the commands use, stored and notified as the CLI does.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "../../src/cli/options.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace po = lsgl::cli::po;
  int k = 0;
  double r = 0;
  std::string s;
  std::uint64_t seed = 0;
  std::int64_t n = 0;
  bool quiet = false;
  po::options_description desc;
  desc.add_options()("k", po::value(&k))("r", po::value(&r))("input", po::value(&s))(
      "seed", po::value(&seed))("n", po::value(&n))("quiet", lsgl::cli::flag(&quiet));
  try {
    po::variables_map vm;
    lsgl::cli::store_config_text(std::string(reinterpret_cast<const char*>(data), size),
                                 "fuzz.ini", desc, vm);
    po::notify(vm);
  } catch (const std::exception&) {
  }
  return 0;
}
