#include "lsgl/io/output_format.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <utility>

namespace lsgl {

namespace {

// Each format's extensions, lower case; the first is the one messages suggest.
const std::vector<std::pair<OutputFormat, std::vector<std::string>>>& extension_table() {
  static const std::vector<std::pair<OutputFormat, std::vector<std::string>>> table = {
      {OutputFormat::kHdf5, {".h5", ".hdf5"}},
      {OutputFormat::kNpz, {".npz"}},
      {OutputFormat::kMtx, {".mtx"}},
      {OutputFormat::kEdgeList, {".txt", ".edges", ".edgelist", ".tsv"}},
      {OutputFormat::kText, {".txt"}},
      {OutputFormat::kJson, {".json"}},
  };
  return table;
}

const std::vector<std::string>& extensions_of(OutputFormat f) {
  for (const auto& [format, exts] : extension_table())
    if (format == f) return exts;
  throw std::logic_error("output format without extensions");
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The format of a name ending in .gz: what the name without .gz asks for, when that format is
// text that gzip compresses (Matrix Market, an edge list); the others are refused.
OutputFormat gzip_format(const std::string& option, const std::string& path,
                         const std::vector<OutputFormat>& allowed) {
  const std::string inner = path.substr(0, path.size() - 3);
  const OutputFormat f = output_format(option, inner, allowed);
  if (f == OutputFormat::kMtx || f == OutputFormat::kEdgeList) return f;
  std::string why = "write '" + inner + "' and compress it with gzip if needed";
  if (f == OutputFormat::kNpz)
    why = "a .npz is a ZIP archive, which has its own compression: write '" + inner + "'";
  if (f == OutputFormat::kHdf5)
    why = "an HDF5 file compresses its own datasets: write '" + inner + "'";
  throw std::invalid_argument(option + " '" + path + "': gzip output is written for Matrix " +
                              "Market (.mtx.gz) and edge lists (.txt.gz, ...) only; " + why);
}

}  // namespace

bool gzip_output(const std::string& path) { return ends_with(lower(path), ".gz"); }

std::string output_extensions(const std::vector<OutputFormat>& allowed) {
  std::vector<std::string> seen;
  std::string s;
  for (OutputFormat f : allowed)
    for (const std::string& e : extensions_of(f)) {
      if (std::find(seen.begin(), seen.end(), e) != seen.end()) continue;
      seen.push_back(e);
      s += (s.empty() ? "" : ", ") + e;
    }
  return s;
}

OutputFormat output_format(const std::string& option, const std::string& path,
                           const std::vector<OutputFormat>& allowed) {
  const std::string name = lower(path);
  const std::string accepted = option + " '" + path + "': the format is chosen by the name's " +
                               "extension (" + output_extensions(allowed) + ")";
  if (ends_with(name, ".gz")) return gzip_format(option, path, allowed);
  for (OutputFormat f : allowed)
    for (const std::string& e : extensions_of(f))
      if (ends_with(name, e)) return f;
  const std::size_t slash = name.find_last_of('/');
  const std::size_t dot = name.find_last_of('.');
  const bool has_extension =
      dot != std::string::npos && (slash == std::string::npos || dot > slash);
  if (!has_extension) throw std::invalid_argument(accepted + "; the name has none");
  throw std::invalid_argument(accepted + "; this command does not write '" + name.substr(dot) +
                              "' files");
}

}  // namespace lsgl
