#pragma once
// The options of the continuous-relaxation baselines, shared by `lsgl densest` (lp,
// l2box-admm, mpec-epm, mpec-adm) and `lsgl hash train` (the same solvers as B-steps).
#include "lsgl/dpcd/relaxations.hpp"
#include "options.hpp"

namespace lsgl::cli {

// Which command declares them: densest also has the x-update's conjugate gradients and the
// ascent steps' tolerance of the MPEC x-step; hash names the solvers by their --solver names.
enum class RelaxationCommand { kDensest, kHash };

// Local. Adds --lp-*, --l2box-* and --mpec-* with the structs' values as defaults.
void add_relaxation_options(po::options_description& desc, dpcd::LpOptions& lp,
                            dpcd::L2boxOptions& l2box, dpcd::MpecOptions& mpec,
                            RelaxationCommand command);

}  // namespace lsgl::cli
