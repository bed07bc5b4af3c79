#include "lsgl/pipeline/densest.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "lsgl/dpcd/baselines.hpp"
#include "lsgl/graph/balance.hpp"
#include "lsgl/graph/graph_io.hpp"
#include "lsgl/io/attributes.hpp"
#include "lsgl/io/h5.hpp"
#include "lsgl/graph/renumber.hpp"
#include "lsgl/io/output_format.hpp"
#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/file_identity.hpp"
#include "lsgl/util/format.hpp"
#include "lsgl/util/phase.hpp"

namespace lsgl {

namespace {

std::string join(const std::vector<dpcd::InitialSet>& v) {
  std::string s;
  for (const auto x : v) s += (s.empty() ? "" : ",") + to_string(x);
  return s;
}

// Local. The format of --output: its name's (.h5/.hdf5 or .txt), which --output-format must agree
// with when given; throws std::invalid_argument otherwise.
SubgraphFormat subgraph_output_format(const DensestOptions& o) {
  const OutputFormat named =
      output_format("--output", o.output, {OutputFormat::kHdf5, OutputFormat::kText});
  // hdf5 and text carry the same names in both tables.
  const SubgraphFormat f = *value_named<SubgraphFormat>(to_string(named));
  if (o.output_format && *o.output_format != f)
    throw std::invalid_argument("--output-format " + to_string(*o.output_format) +
                                " but the name --output '" + o.output + "' asks for " +
                                to_string(f) +
                                ": change one of them (or leave --output-format out)");
  return f;
}

// from_file: run_densest (the graph from o.graph); else densest_rows.
void validate(MPI_Comm comm, const DensestOptions& o, bool from_file) {
  if (from_file) collective_check(comm, !o.graph.empty(), "--graph is required");
  collective_check(comm, !o.sizes.empty(), "--size is required");
  for (auto k : o.sizes)
    collective_check(comm, k >= 1, "--size must be at least 1 (got " + std::to_string(k) + ")");
  collective_check(comm, !o.methods.empty(), "--method is empty");
  collective_check(comm, o.output.empty() || o.sizes.size() * o.methods.size() == 1,
                   "--output needs a single --size and a single --method");
  if (!o.output.empty()) collectively(comm, [&] { subgraph_output_format(o); });
  collective_check(comm, o.tpower_max_iterations >= 1, "--tpower-max-iter must be at least 1");
  const auto& d = o.dpcd.dpcd;
  collective_check(comm, d.max_iterations >= 0, "--max-iter must be >= 0");
  collective_check(comm, d.alpha1 >= 0 && d.alpha2 >= 0, "--alpha1 and --alpha2 must be >= 0");
  collective_check(comm, d.eps > 0, "--eps must be positive");
  collective_check(comm, d.ns_m >= 0 && d.ns_pool >= 1 && d.ns_every >= 0 && d.ns_samples >= 0,
                   "need --ns-m >= 0, --ns-pool >= 1, --ns-every >= 0, --ns-samples >= 0");
  collective_check(comm, !o.dpcd.init.empty(), "--init needs at least one initial set");
  collective_check(comm, o.dpcd.tpower_iterations >= 1, "--init-tpower-iter must be at least 1");
  dpcd::check_options(comm, o.lp);
  dpcd::check_options(comm, o.l2box);
  dpcd::check_options(comm, o.mpec);
}

bool is_dpcd(DensestMethod m) { return m == DensestMethod::kDpcd || m == DensestMethod::kDpcd0; }

bool is_relaxation(DensestMethod m) {
  return m == DensestMethod::kLp || m == DensestMethod::kL2box || m == DensestMethod::kMpecEpm ||
         m == DensestMethod::kMpecAdm;
}

// The method's parameters, as attributes of /subgraph.
Attributes method_parameters(const DensestOptions& o, const DensestSummary& s) {
  Attributes a;
  if (is_dpcd(o.method)) {
    const auto& d = o.dpcd.dpcd;
    a = {{"init", s.init_used},
         {"init_candidates", join(o.dpcd.init)},
         {"init_mode", std::string(o.dpcd.from_each ? "each" : "best")},
         {"init_tpower_iter", static_cast<std::int64_t>(o.dpcd.tpower_iterations)},
         {"thresholds", to_string(d.thresholds)},
         {"alpha1", d.alpha1},
         {"alpha2", d.alpha2},
         {"eps", d.eps},
         {"centre", to_string(d.centre)},
         {"threshold_scope", to_string(d.scope)},
         {"fallback", to_string(d.fallback)},
         {"max_iter", static_cast<std::int64_t>(d.max_iterations)},
         {"max_flips", d.max_flips},
         {"ns_every", static_cast<std::int64_t>(d.ns_every)},
         {"ns_at_stagnation", static_cast<std::int64_t>(d.ns_at_stagnation)},
         {"ns_m", static_cast<std::int64_t>(d.ns_m)},
         {"ns_pool", static_cast<std::int64_t>(d.ns_pool)},
         {"ns_exhaustive_limit", d.ns_exhaustive_limit},
         {"ns_samples", static_cast<std::int64_t>(d.ns_samples)},
         {"ns_plateau", static_cast<std::int64_t>(d.ns_plateau)},
         {"seed", static_cast<std::int64_t>(d.seed)},
         {"iterations", static_cast<std::int64_t>(s.iterations)},
         {"converged", static_cast<std::int64_t>(s.converged)}};
  } else if (o.method == DensestMethod::kTpower) {
    a = {{"init", s.init_used},
         {"max_iter", static_cast<std::int64_t>(o.tpower_max_iterations)},
         {"iterations", static_cast<std::int64_t>(s.iterations)},
         {"converged", static_cast<std::int64_t>(s.converged)}};
  } else if (o.method == DensestMethod::kPeel) {
    a = {{"peel_queue", std::string("gathered on rank 0; bucket queue (equal weights) or "
                                    "binary heap (weighted)")}};
  } else if (o.method == DensestMethod::kLp) {
    a = {{"max_iter", static_cast<std::int64_t>(o.lp.max_iterations)}, {"tol", o.lp.tol}};
  } else if (o.method == DensestMethod::kL2box) {
    const auto& l = o.l2box;
    a = {{"rho", l.rho},
         {"rho_growth", l.rho_growth},
         {"rho_every", static_cast<std::int64_t>(l.rho_every)},
         {"gamma", l.gamma},
         {"gamma_factor", l.gamma_factor},
         {"max_iter", static_cast<std::int64_t>(l.max_iterations)},
         {"stop", l.stop},
         {"std_tol", l.std_tol},
         {"history", static_cast<std::int64_t>(l.history)},
         {"cg_tol", l.cg_tol},
         {"cg_max_iter", static_cast<std::int64_t>(l.cg_max_iterations)}};
  } else if (o.method == DensestMethod::kMpecEpm || o.method == DensestMethod::kMpecAdm) {
    const auto& m = o.mpec;
    a = {{"rho", m.rho},
         {"growth", m.growth},
         {"every", static_cast<std::int64_t>(m.every)},
         {"max_iter", static_cast<std::int64_t>(m.max_iterations)},
         {"inner_iter", static_cast<std::int64_t>(m.inner_iterations)},
         {"inner_tol", m.inner_tol},
         {"gap_tol", m.gap_tol}};
  }
  if (is_relaxation(o.method)) {
    a.push_back({"iterations", static_cast<std::int64_t>(s.iterations)});
    a.push_back({"converged", static_cast<std::int64_t>(s.converged)});
    a.push_back({"inner_iterations", s.inner});
    a.push_back({"products", s.products});
    a.push_back({"start", std::string("x = P(k d / sum d), d the weighted degrees; rounded to "
                                      "the k largest entries")});
  }
  return a;
}

// The line that says what one (size, method) pair found.
std::string summary_line(const DensestOptions& o, const DensestSummary& s) {
  const bool dpcd = is_dpcd(o.method);
  const std::string init = dpcd && !s.init_used.empty() ? " (init " + s.init_used + ")" : "";
  std::string line = strprintf(
      "densest: method %s%s, k %lld, density %.6g, edges inside %lld, weight inside %.6g, %.3f s",
      name_of(o.method), init.c_str(), static_cast<long long>(s.stats.k), s.stats.density,
      static_cast<long long>(s.stats.edges_inside), s.stats.weight_inside, s.seconds);
  if (dpcd || o.method == DensestMethod::kTpower || is_relaxation(o.method))
    line += strprintf(", %d iterations%s", s.iterations, s.converged ? " (converged)" : "");
  if (is_relaxation(o.method))
    line += strprintf(", %lld products W x", static_cast<long long>(s.products));
  return line;
}

void write_hdf5(MPI_Comm comm, const DensestOptions& o, const DensestSummary& s) {
  const int rank = comm_rank(comm);
  bool finite = std::isfinite(s.stats.density) && std::isfinite(s.stats.weight_inside);
  for (double v : s.objective) finite = finite && std::isfinite(v);
  collective_check(comm, finite,
                   "subgraph not written: its weight is not a finite double (the weights sum "
                   "past DBL_MAX); scale them down");
  write_hdf5_atomically(comm, o.output, [&](const h5::File& f) {
    h5::ensure_group(f, "/subgraph");
    const auto local = static_cast<std::int64_t>(s.members.size());
    h5::write_1d(f, "/subgraph/nodes", s.members, exscan_sum(comm, local), s.stats.k);
    const auto hist_n = static_cast<std::int64_t>(s.objective.size());
    h5::write_1d(f, "/subgraph/objective", rank == 0 ? s.objective : std::vector<double>{}, 0,
                 hist_n);
    Attributes attrs = {{"k", s.stats.k},
                        {"density", s.stats.density},
                        {"edges_inside", s.stats.edges_inside},
                        {"weight_inside", s.stats.weight_inside},
                        {"method", to_string(o.method)},
                        {"seconds", s.seconds},
                        {"objective_definition",
                         std::string(is_relaxation(o.method)
                                         ? "x^T W x of the continuous x after each iteration"
                                         : "x^T W x after each iteration")}};
    for (auto& p : method_parameters(o, s)) attrs.push_back(p);
    set_attributes(f, "/subgraph", attrs);
    set_attributes(f, "/",
                   provenance_attributes(comm, o.command_line, o.configuration,
                                         {{"input", o.graph},
                                          {"input_format", s.input.format},
                                          {"input_n", s.input.n},
                                          {"input_edges", s.input.edges},
                                          {"input_note", s.input.note()}}));
  });
}

// Node ids one per line; gathered on rank 0 (k ids), written through write_atomically.
void write_members(MPI_Comm comm, const DensestOptions& o, const DensestSummary& s) {
  const int size = comm_size(comm), rank = comm_rank(comm);
  int mine = static_cast<int>(s.members.size());
  std::vector<int> counts(size), displs(size, 0);
  MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  for (int p = 1; p < size; ++p) displs[p] = displs[p - 1] + counts[p - 1];
  std::vector<std::int64_t> all(
      rank == 0 ? static_cast<std::size_t>(displs[size - 1] + counts[size - 1]) : 0);
  MPI_Gatherv(s.members.data(), mine, MPI_INT64_T, all.data(), counts.data(), displs.data(),
              MPI_INT64_T, 0, comm);
  std::string text;
  for (auto v : all) text += std::to_string(v) + "\n";
  write_atomically(comm, o.output, [&](const std::string& tmp) {
    if (rank == 0) write_text(tmp, text, o.output);
  });
}

}  // namespace

namespace {

// DPCD or DPCD-0 (no neighbourhood search) from the initial set(s).
void run_dpcd(const dpcd::FixedPointGraph& g, const DensestOptions& o,
              const std::vector<std::int64_t>& init, DensestSummary& s) {
  using namespace dpcd;
  DensestDpcdOptions d = o.dpcd;
  if (o.method == DensestMethod::kDpcd0) {
    d.dpcd.ns_every = 0;
    d.dpcd.ns_at_stagnation = false;
  }
  // from_each: the initial sets are computed here, each followed by its DPCD run.
  DensestDpcdResult r = d.from_each ? dpcd_densest(g, o.k, d) : dpcd_from(g, init, d.dpcd);
  if (d.from_each) s.init_used = r.init_used;
  s.members = std::move(r.members);
  s.objective = std::move(r.report.objective);
  s.iterations = r.report.iterations;
  s.converged = r.report.converged;
}

void run_relaxation(const dpcd::FixedPointGraph& g, const DensestOptions& o, DensestSummary& s) {
  dpcd::RelaxationResult r;
  if (o.method == DensestMethod::kLp)
    r = dpcd::lp_relaxation(g, o.k, o.lp);
  else if (o.method == DensestMethod::kL2box)
    r = dpcd::l2box_admm(g, o.k, o.l2box);
  else if (o.method == DensestMethod::kMpecEpm)
    r = dpcd::mpec_epm(g, o.k, o.mpec);
  else
    r = dpcd::mpec_adm(g, o.k, o.mpec);
  s.members = std::move(r.members);
  s.objective = std::move(r.objective);
  s.iterations = r.iterations;
  s.converged = r.converged;
  s.inner = r.inner;
  s.products = r.products;
}

}  // namespace

DensestSummary run_method(const dpcd::FixedPointGraph& g, const DensestOptions& o,
                          Monitor& monitor) {
  using namespace dpcd;
  MPI_Comm comm = g.comm;
  DensestSummary s;
  s.method = o.method;
  std::vector<std::int64_t> init;
  const bool dpcd = is_dpcd(o.method);
  s.t_init = timed_phase(comm, "init", monitor, [&] {
    if (dpcd && !o.dpcd.from_each) {
      double d = 0.0;
      init = best_initial_set(g, o.k, o.dpcd.init, o.dpcd.tpower_iterations, &s.init_used, &d);
    } else if (o.method == DensestMethod::kTpower) {
      init = top_degree(g, o.k);
      s.init_used = to_string(InitialSet::kDegree);
    }
  });
  if (dpcd && !o.dpcd.from_each)
    monitor.message(MessageKind::kInfo, strprintf("  initial set: %s (densest of %s)",
                                                  s.init_used.c_str(), join(o.dpcd.init).c_str()));
  s.t_optimise = timed_phase(comm, "optimise", monitor, [&] {
    if (dpcd) {
      run_dpcd(g, o, init, s);
    } else if (o.method == DensestMethod::kTpower) {
      s.members = tpower(g, o.k, init, o.tpower_max_iterations, &s.objective, &s.iterations);
      s.converged = s.iterations < o.tpower_max_iterations;
    } else if (is_relaxation(o.method)) {
      run_relaxation(g, o, s);
    } else {
      if (o.method == DensestMethod::kPeel)
        s.members = peel(g, o.k);
      else if (o.method == DensestMethod::kRavi)
        s.members = ravi(g, o.k);
      else
        s.members = feige(g, o.k);
    }
  });
  s.seconds = s.t_init + s.t_optimise;
  s.stats = evaluate_subgraph(g, s.members);
  if (s.objective.empty()) s.objective.push_back(g.to_double(s.stats.xwx));
  return s;
}

namespace {

// Collective. Every (size, method) pair on the graph g (read in t_read seconds), the output of a
// single pair written (with the id map of --renumber when `names` is not empty).
std::vector<DensestSummary> run_pairs(MPI_Comm comm, const DensestOptions& opt,
                                      const dpcd::FixedPointGraph& g,
                                      const GraphInputReport& input, double t_read,
                                      const std::vector<std::string>& names, Monitor& monitor) {
  const bool ids = opt.input.renumber && !opt.output.empty();
  const std::string label = opt.graph.empty() ? std::string("graph") : opt.graph;
  monitor.message(MessageKind::kInfo,
                  strprintf("  %s: n = %lld, %lld edges (%s, %s)", label.c_str(),
                            static_cast<long long>(input.n), static_cast<long long>(input.edges),
                            input.format.c_str(), input.weighted ? "weighted" : "unweighted"));
  const std::string note = input.note();
  if (!note.empty()) monitor.message(MessageKind::kInfo, "  note: " + note);
  for (auto k : opt.sizes)
    collective_check(comm, k <= g.n(),
                     "--size " + std::to_string(k) + " exceeds the number of nodes n = " +
                         std::to_string(g.n()));
  std::vector<DensestSummary> out;
  for (auto k : opt.sizes) {
    for (const DensestMethod method : opt.methods) {
      DensestOptions o = opt;
      o.k = k;
      o.method = method;
      DensestSummary s = run_method(g, o, monitor);
      s.input = input;
      s.t_read = t_read;
      if (!o.output.empty()) {
        s.t_write = timed_phase(comm, "write", monitor, [&] {
          if (subgraph_output_format(o) == SubgraphFormat::kText)
            write_members(comm, o, s);
          else
            write_hdf5(comm, o, s);
          if (ids) write_node_names(comm, node_ids_path(o.output), names);
        });
      }
      monitor.message(MessageKind::kSummary, summary_line(o, s));
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace

std::vector<DensestSummary> run_densest(MPI_Comm comm, const DensestOptions& opt,
                                        Monitor& monitor) {
  validate(comm, opt, true);
  // With --renumber the output's node ids are positions in OUTPUT.ids.
  const bool ids = opt.input.renumber && !opt.output.empty();
  const std::string ids_path = node_ids_path(opt.output);
  check_distinct_files(comm, {{"--graph", opt.graph}},
                       ids ? std::vector<FileArg>{{"--output", opt.output},
                                                  {"--output's id map", ids_path}}
                           : std::vector<FileArg>{{"--output", opt.output}});
  if (!opt.output.empty()) check_writable(comm, opt.output);
  if (ids) check_writable(comm, ids_path);
  GraphInputReport input;
  dpcd::FixedPointGraph g;
  std::vector<std::string> names;
  GraphInputOptions in = opt.input;
  in.blocks = RowBlocks::kBalanced;  // memory and work follow the entries, not the rows
  const double t_read = timed_phase(comm, "read", monitor, [&] {
    g = dpcd::make_fixed_point(comm, read_graph_input(comm, opt.graph, in, &input, &names));
  });
  return run_pairs(comm, opt, g, input, t_read, names, monitor);
}

std::vector<DensestSummary> densest_rows(MPI_Comm comm, const DensestOptions& opt, LocalCsr rows,
                                         const GraphInputReport& input, Monitor& monitor) {
  validate(comm, opt, false);
  collective_check(comm, !opt.input.renumber, "--renumber applies to graph files only");
  if (!opt.output.empty()) check_writable(comm, opt.output);
  dpcd::FixedPointGraph g;
  const double t_read = timed_phase(comm, "read", monitor, [&] {
    g = dpcd::make_fixed_point(comm, balance_rows(comm, std::move(rows)));
  });
  return run_pairs(comm, opt, g, input, t_read, {}, monitor);
}

}  // namespace lsgl
