// The option a typo most likely meant (see options.hpp nearest_option); apart from options.cpp
// so that it builds without MPI (tests/fuzz).
#include <algorithm>
#include <vector>

#include "options.hpp"

namespace lsgl::cli {

namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and transpositions
// of adjacent characters each count one ("hlep" -> "help": 1).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

}  // namespace

std::string nearest_option(const std::string& name, const po::options_description& desc) {
  if (name.empty()) return "";
  // A typo: at most 1 edit in names of up to 4 characters, 2 up to 8, 3 beyond.
  const std::size_t allowed = name.size() <= 4 ? 1 : name.size() <= 8 ? 2 : 3;
  std::string best, completion;
  std::size_t best_distance = allowed + 1;
  int completions = 0;
  for (const auto& option : desc.options()) {
    const std::string& candidate = option->long_name();
    const std::size_t d = edit_distance(name, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
    if (candidate.size() > name.size() && candidate.compare(0, name.size(), name) == 0) {
      ++completions;
      completion = candidate;
    }
  }
  if (!best.empty()) return best;
  return completions == 1 ? completion : "";
}

}  // namespace lsgl::cli
