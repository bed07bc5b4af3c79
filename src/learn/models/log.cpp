// --model log, the default: [KP19] eq. 5 with theta from eq. 18 (corrected until the average
// degree is k), solved by fbf or fdpg, with checkpoints, resume and interruption by a signal.
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <utility>

#include "lsgl/learn/checkpoint.hpp"
#include "lsgl/learn/degree_search.hpp"
#include "lsgl/learn/models.hpp"
#include "lsgl/learn/solver.hpp"
#include "lsgl/learn/solvers/log.hpp"
#include "lsgl/learn/theta.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/format.hpp"
#include "lsgl/util/interrupt.hpp"

namespace lsgl {

namespace {

// "theta:degree:iterations:tol" of every solve, separated by "; " (tol: the final tolerance for
// full solves, else the search's).
std::string degree_trials_text(const std::vector<DegreeTrial>& trials, double tol,
                               double search_tol) {
  std::ostringstream out;
  out.precision(10);
  for (std::size_t i = 0; i < trials.size(); ++i) {
    out << (i ? "; " : "") << trials[i].x << ":" << trials[i].degree << ":" << trials[i].iterations
        << ":" << (trials[i].full ? tol : search_tol);
  }
  return out.str();
}

class LogModel : public Model {
 public:
  LogModel(const ModelContext& c, const LogModelParams& p) : Model(c), p_(p) {
    collective_check(c.comm, (p.alpha > 0) == (p.beta > 0),
                     "--alpha and --beta must be given together");
    collective_check(c.comm, !(p.theta > 0 && p.alpha > 0),
                     "give either --theta or --alpha/--beta");
    // [KP19] Thm. 1: every weight is at most delta, 1 before scaling, where --prune applies.
    char text[200];
    std::snprintf(text, sizeof text,
                  "--prune %g is at or above 1, the largest weight the log model can learn "
                  "([KP19] Thm. 1; --prune applies before scaling): the graph would be empty",
                  c.prune);
    collective_check(c.comm, c.prune < 1, text);
  }
  const char* prepare_phase() const override { return "theta"; }

  // The checkpoint key: the data (n, d and its fingerprint), then the options of the key.
  void attach_data(const LocalRows& data) override {
    std::ostringstream k;
    k << "n=" << data.n << " d=" << data.d << " data=" << std::hex
      << fingerprint(c_.comm, data) << std::dec << p_.checkpoint_key;
    key_ = k.str();
  }

  void prepare(const Candidates& cand) override {
    const double theta = p_.alpha > 0   ? 1.0 / std::sqrt(p_.alpha * p_.beta)
                         : p_.theta > 0 ? p_.theta
                                        : theta_from_k(c_.comm, cand, c_.k).theta;
    set_parameters(theta);
    theta_eq18_ = p_.alpha > 0 || p_.theta > 0 ? 0.0 : theta;
    if (theta_eq18_ > 0 && c_.degree.tol > 0)
      slope_eq18_ = eq18_degree_slope(c_.comm, cand, c_.k);
    dual_scale_ = c_.solver.dual_scale > 0 ? c_.solver.dual_scale
                                           : estimate_dual_scale(c_.comm, cand, theta_);
  }

  EdgeSet resume(const std::string& path, double* recall) override {
    LoadedCheckpoint c = read_checkpoint(c_.comm, path);
    collective_check(c_.comm, c.info.key == key_,
                     "checkpoint '" + path +
                         "' was written for other data or other parameters (it has: " +
                         c.info.key + ")");
    start_ = std::make_unique<SolverState>(std::move(c.state));
    *recall = c.info.recall;
    theta_eq18_ = c.info.theta_eq18;
    set_parameters(c.info.theta);
    dual_scale_ = start_->dual_scale;
    inform(strprintf("  resuming from '%s' at iteration %d", path.c_str(), start_->iteration));
    return std::move(c.edges);
  }

  std::vector<double> learn(LearnInput in) override {
    CheckpointInfo info;
    info.key = key_;
    info.theta = theta_;
    info.theta_eq18 = theta_eq18_;
    info.recall = in.recall;
    std::vector<double> w = learn_to_degree(in.edges, info);
    inform(strprintf(
        "  ||S|| = %.4g (power iteration), gamma = %.4g, dual scale %.4g after %d rescales",
        report_.norm_S, report_.gamma, report_.final_dual_scale, report_.rescales));
    return w;
  }

  double scale() const override { return delta_; }

  std::string prepared_line(std::int64_t allowed_edges) const override {
    std::string line = strprintf("theta = %.6g, %lld allowed edges, dual scale %.4g", theta_,
                                 static_cast<long long>(allowed_edges), dual_scale_);
    if (slope_eq18_ != 0)
      line += strprintf(", eq. 18 slope d log k / d log theta %.3f", slope_eq18_);
    return line;
  }

  void add_attributes(Attributes& a) const override {
    a.emplace_back("theta", theta_);
    a.emplace_back("alpha", alpha_);
    a.emplace_back("beta", beta_);
    a.emplace_back("delta", delta_);
    a.emplace_back("solver", to_string(c_.solver.solver));
    a.emplace_back("iterations", static_cast<std::int64_t>(report_.iterations));
    a.emplace_back("converged", static_cast<std::int64_t>(report_.converged ? 1 : 0));
    if (fdpg()) {
      a.emplace_back("kkt_residual", report_.kkt_residual);
      // Also under fbf's name, for readers of earlier files (for one release, CHANGELOG).
      a.emplace_back("rel_change_primal", report_.kkt_residual);
    } else {
      a.emplace_back("rel_change_primal", report_.rel_change_primal);
    }
    a.emplace_back("tol", c_.solver.tol);
    a.emplace_back("rel_change_dual", report_.rel_change_dual);
    a.emplace_back("step", c_.solver.step);
    a.emplace_back("dual_scale_initial", dual_scale_);
    a.emplace_back("dual_scale", report_.final_dual_scale);
    a.emplace_back("theta_eq18", theta_eq18_);
    a.emplace_back("degree_tol", c_.degree.tol);
    a.emplace_back("degree_solves", static_cast<std::int64_t>(trials_.size()));
    a.emplace_back("degree_reached", static_cast<std::int64_t>(degree_reached_ ? 1 : 0));
    a.emplace_back("degree_trials", degree_trials_text(trials_, c_.solver.tol, search_tol_));
    a.emplace_back("degree_slope_eq18", slope_eq18_);
    a.emplace_back("iterations_total", static_cast<std::int64_t>(iterations_total_));
  }

  std::vector<std::string> summary_lines() const override {
    std::vector<std::string> lines = {
        strprintf("  solver             %s", name_of(c_.solver.solver)),
        report_.iterations_run == 0
            ? strprintf("  iterations         %d (NOT converged: resumed at --max-iter, none run)",
                        report_.iterations)
            : strprintf("  iterations         %d (%s, %s %.2e, dual %.2e, tol %.0e)",
                        report_.iterations, report_.converged ? "converged" : "NOT converged",
                        fdpg() ? "KKT residual" : "rel. change primal",
                        fdpg() ? report_.kkt_residual : report_.rel_change_primal,
                        report_.rel_change_dual, c_.solver.tol)};
    if (trials_.size() > 1 && (theta_ != trials_.front().x || !degree_reached_))
      lines.push_back(strprintf(
          "  degree correction  %s: theta %.6g (eq. 18: %.6g), %zu solves, %d iterations in all",
          degree_reached_ ? "within --degree-tol" : "NOT within --degree-tol (closest kept)",
          theta_, theta_eq18_, trials_.size(), iterations_total_));
    return lines;
  }

 private:
  bool fdpg() const { return c_.solver.solver == SolverKind::kFdpg; }

  // alpha, beta, delta for a theta ([KP19] Prop. 1): with --alpha/--beta as given (weights
  // scaled by delta); otherwise alpha = beta = 1/theta and delta = 1.
  void set_parameters(double theta) {
    theta_ = theta;
    if (p_.alpha > 0) {
      alpha_ = p_.alpha;
      beta_ = p_.beta;
      delta_ = std::sqrt(p_.alpha / p_.beta);
    } else {
      alpha_ = beta_ = 1.0 / theta;
      delta_ = 1.0;
    }
  }

  // Collective. The iteration at theta = info.theta to `tol`, from `start` if given, with
  // progress lines, checkpoints and the interrupt flag; fills report_ and, when given,
  // *final_state with the state after the last iteration (the start when none ran).
  std::vector<double> solve(const EdgeSet& edges, const CheckpointInfo& info, double tol,
                            const SolverState* start, SolverState* final_state) {
    std::vector<double> tz = edges.z();
    for (auto& x : tz) x *= info.theta;
    SolverParams sp = c_.solver;
    sp.tol = tol;
    sp.dual_scale = dual_scale_;
    sp.interrupt = interrupt_flag();
    sp.monitor = c_.monitor;
    sp.norm_S = norm_S_;
    std::vector<double> w = learn_log(
        edges, tz, sp, report_,
        [&](const IterationInfo& it, const std::function<SolverState(bool)>& capture) {
          const bool due =
              p_.checkpoint_every > 0 && it.iteration % p_.checkpoint_every == 0 && !it.converged;
          if (!p_.checkpoint.empty() && (due || it.interrupted)) {
            write_checkpoint(p_.checkpoint, edges, capture(true), info);
            inform(strprintf("  checkpoint written at iteration %d: %s", it.iteration,
                             p_.checkpoint.c_str()));
          }
          if (final_state && (it.converged || it.iteration >= sp.max_iterations)) {
            *final_state = capture(false);
          }
          return it.interrupted;
        },
        start);
    norm_S_ = report_.norm_S;
    // A start already at --max-iter runs no iteration: the state after the solve is the start.
    if (final_state && start && report_.iterations_run == 0) *final_state = *start;
    return w;
  }

  // Collective. The solve at info.theta; when theta came from [KP19] eq. 18 and --degree-tol
  // > 0, theta is corrected (search_degree) with solves to --degree-search-tol, each
  // warm-started from the previous one's weights and duals; the closest is continued to --tol
  // from its state, and when that leaves --degree-tol the search goes on with solves to --tol.
  // Returns the weights of the closest solve to --tol.
  std::vector<double> learn_to_degree(const EdgeSet& edges, CheckpointInfo info) {
    const bool target = c_.degree.tol > 0 && p_.theta <= 0 && p_.alpha <= 0;
    search_tol_ = target ? std::max(c_.solver.tol, c_.degree.search_tol) : c_.solver.tol;
    SolverState last, closest_state;
    bool have_last = false;
    std::vector<double> w, kept_w;
    SolverReport kept_report;
    double closest_deviation = std::numeric_limits<double>::infinity();
    double kept_deviation = std::numeric_limits<double>::infinity();
    iterations_total_ = 0;
    DegreeSearchParams dp;
    dp.k = c_.k;
    dp.tolerance = c_.degree.tol;
    dp.max_solves = target ? c_.degree.max_solves : 1;
    dp.first_slope = std::abs(slope_eq18_);
    dp.continue_closest = search_tol_ > c_.solver.tol;
    const auto solve_at = [&](const DegreeSolve& q) -> std::optional<DegreeTrial> {
      info.theta = q.x;
      if (have_last && !q.continues) {  // a new theta: fresh counts of iterations, momentum
        last.iteration = 0;
        last.rescales = 0;
        last.mu.clear();
        last.momentum = 1.0;
      }
      const SolverState* from = q.continues ? &closest_state : (have_last ? &last : start_.get());
      SolverState next;
      w = solve(edges, info, q.full ? c_.solver.tol : search_tol_, from, &next);
      iterations_total_ += report_.iterations_run;
      if (report_.interrupted) return std::nullopt;
      last = std::move(next);
      have_last = true;
      const DegreeTrial t{q.x, average_degree(edges, w, c_.prune), report_.iterations_run, q.full};
      const double deviation = std::abs(t.degree - c_.k);
      if (target) {
        inform(strprintf(
            "  theta %.6g: average degree %.3f (%+.1f%%), %d %siterations at tol %.0e%s", q.x,
            t.degree, 100.0 * (t.degree - c_.k) / c_.k, t.iterations, q.continues ? "more " : "",
            q.full ? c_.solver.tol : search_tol_, report_.converged ? "" : " (NOT converged)"));
      }
      if (!q.full && deviation < closest_deviation) {  // the one search_degree would continue
        closest_deviation = deviation;
        closest_state = last;
      }
      if (q.full && deviation < kept_deviation) {  // the choice of r.best
        kept_deviation = deviation;
        kept_w = std::move(w);  // the next solve assigns w anew
        kept_report = report_;
      }
      trials_.push_back(t);
      return t;
    };
    const DegreeSearchResult r = search_degree(dp, info.theta, solve_at);
    degree_reached_ = r.reached;
    if (r.interrupted || r.trials.empty()) return w;
    theta_ = r.trials[r.best].x;
    report_ = kept_report;
    return kept_w;
  }

  const LogModelParams p_;
  std::string key_;  // checkpoint key: the data's fingerprint and the problem's parameters
  double theta_ = 0.0, alpha_ = 0.0, beta_ = 0.0, delta_ = 1.0;
  double theta_eq18_ = 0.0;  // [KP19] eq. 18's theta (0: theta given, or unknown on resume)
  double slope_eq18_ = 0.0;  // eq18_degree_slope at k (0: not estimated, e.g. on resume)
  double search_tol_ = 0.0;  // tolerance of the degree search's solves
  double dual_scale_ = 1.0;
  std::unique_ptr<SolverState> start_;  // the resumed state
  std::vector<DegreeTrial> trials_;     // every solve of the degree correction
  bool degree_reached_ = false;         // the kept solve is within --degree-tol
  int iterations_total_ = 0;            // over all solves
  double norm_S_ = 0.0;                 // ||S|| of the edge set, from the first solve on
};

}  // namespace

std::unique_ptr<Model> make_log_model(const ModelContext& c, const LogModelParams& p) {
  return std::make_unique<LogModel>(c, p);
}

}  // namespace lsgl
