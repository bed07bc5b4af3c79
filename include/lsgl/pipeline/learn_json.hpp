#pragma once
// `lsgl learn --json FILE`: the run's summary as one JSON object, for scripts (as `eval --json`
// and `hash eval --json`).
#include <string>

#include "lsgl/pipeline/learn.hpp"

namespace lsgl {

// Local. The summary rank 0 prints, as a JSON object: the input and output, n, d, k, the
// model, edges, degrees, recall, the solver's iterations and convergence, the phase times and
// the peak memory.
std::string learn_summary_json(const LearnOptions& o, const LearnSummary& s);

}  // namespace lsgl
