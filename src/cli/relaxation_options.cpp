// Options of the continuous-relaxation baselines (see relaxation_options.hpp).
#include "relaxation_options.hpp"

#include <string>

namespace lsgl::cli {

void add_relaxation_options(po::options_description& desc, dpcd::LpOptions& lp,
                            dpcd::L2boxOptions& l2, dpcd::MpecOptions& mp,
                            RelaxationCommand command) {
  const bool densest = command == RelaxationCommand::kDensest;
  const std::string mpec = densest ? "mpec-epm, mpec-adm: " : "mpec-epm: ";
  const std::string gain = densest ? "raises x^T W x" : "lowers the loss";
  const std::string per = densest ? "" : " per B-step";
  desc.add_options()
      ("lp-max-iter", po::value(&lp.max_iterations)->default_value(lp.max_iterations),
       std::string("lp: at most this many projected-gradient steps" + per).c_str())
      ("lp-tol", real(&lp.tol),
       std::string("lp: stop when a step " + gain + " by at most this fraction").c_str())
      ("l2box-rho", real(&l2.rho),
       densest ? "l2box-admm: initial rho1 = rho2 = rho3 (Wu & Ghanem: 25)"
               : "l2box-admm: initial rho1 = rho2 (Wu & Ghanem: 25)")
      ("l2box-rho-growth", real(&l2.rho_growth),
       "l2box-admm: the rhos are multiplied by this every --l2box-rho-every iterations (1.01)")
      ("l2box-rho-every", po::value(&l2.rho_every)->default_value(l2.rho_every),
       "l2box-admm: iterations between rho increases (5)")
      ("l2box-gamma", real(&l2.gamma),
       "l2box-admm: step of the multiplier updates (1.6)")
      ("l2box-gamma-factor", real(&l2.gamma_factor),
       "l2box-admm: gamma = max(gamma * factor, 1) at each rho increase (0.95)")
      ("l2box-max-iter", po::value(&l2.max_iterations)->default_value(l2.max_iterations),
       std::string("l2box-admm: iterations" + per + " at most (1000)").c_str())
      ("l2box-stop", real(&l2.stop),
       densest ? "l2box-admm: stop when max(||x - y1||, ||x - y2||) / n is below this (1e-4)"
               : "l2box-admm: stop when max(||x - y1||, ||x - y2||) / ||x|| is below this (1e-4)")
      ("l2box-std-tol", real(&l2.std_tol),
       densest ? "l2box-admm: stop when the relative std of the last --l2box-history "
                 "objectives is below this (1e-6)"
               : "l2box-admm: stop when the relative std of the last --l2box-history losses "
                 "is below this (1e-5)")
      ("l2box-history", po::value(&l2.history)->default_value(l2.history),
       "l2box-admm: values in that std (3)")
      ("mpec-rho", real(&mp.rho),
       densest ? "mpec-epm: initial penalty rho; mpec-adm: initial weight alpha of the squared "
                 "term (0.01)"
               : "mpec-epm: initial penalty rho (0.01)")
      ("mpec-growth", po::value(&mp.growth)->default_value(mp.growth, "sqrt(10)"),
       std::string(mpec + "rho (alpha) multiplied by this every --mpec-every iterations").c_str())
      ("mpec-every", po::value(&mp.every)->default_value(mp.every),
       std::string(mpec + "iterations between increases (10)").c_str())
      ("mpec-max-iter", po::value(&mp.max_iterations)->default_value(mp.max_iterations),
       std::string(mpec + "outer iterations" + per + " at most").c_str())
      ("mpec-inner-iter", po::value(&mp.inner_iterations)->default_value(mp.inner_iterations),
       std::string(mpec + "projected-gradient steps per x-step").c_str())
      ("mpec-tol", real(&mp.gap_tol),
       std::string(mpec + "stop when the gap n - <2x - 1, 2v - 1> is at most this").c_str());
  if (!densest) return;
  desc.add_options()
      ("l2box-cg-tol", real(&l2.cg_tol),
       "l2box-admm: relative residual of the conjugate gradients of the x-update (1e-4)")
      ("l2box-cg-max-iter", po::value(&l2.cg_max_iterations)->default_value(l2.cg_max_iterations),
       "l2box-admm: conjugate-gradient iterations per x-update at most (1000)")
      ("mpec-inner-tol", real(&mp.inner_tol),
       "mpec-epm, mpec-adm: fewer steps when one gains at most this fraction");
}

}  // namespace lsgl::cli
