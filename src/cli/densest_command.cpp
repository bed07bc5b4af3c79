// `lsgl densest`: options -> pipeline.
#include <sstream>

#include "commands_impl.hpp"
#include "graph_input_options.hpp"
#include "lsgl/cli/choices.hpp"
#include "lsgl/cli/command_options.hpp"
#include "lsgl/pipeline/densest.hpp"
#include "lsgl/util/error.hpp"
#include "option_owners.hpp"
#include "options.hpp"
#include "printing_monitor.hpp"
#include "relaxation_options.hpp"

namespace lsgl::cli {

namespace {

// --init-mode: DPCD from the best initial set, or from each.
enum class InitMode { kBest, kEach };
constexpr Named<InitMode> kInitModeNames[] = {{InitMode::kBest, "best"}, {InitMode::kEach, "each"}};
constexpr const auto& names(InitMode) { return kInitModeNames; }

// The methods that read each method-specific option.
const std::vector<OptionOwner<DensestMethod>>& option_owners() {
  using M = DensestMethod;
  static const std::vector<OptionOwner<M>> owners = {
      {{"init", "init-tpower-iter", "init-mode", "thresholds", "alpha1", "alpha2", "eps", "centre",
        "threshold-scope", "fallback", "max-iter", "max-flips"},
       {M::kDpcd, M::kDpcd0}},
      {{"ns-every", "ns-m", "ns-pool", "ns-exhaustive-limit", "ns-samples", "ns-plateau", "seed"},
       {M::kDpcd}},
      {{"tpower-max-iter"}, {M::kTpower}},
      {{"lp-max-iter", "lp-tol"}, {M::kLp}},
      {{"l2box-rho", "l2box-rho-growth", "l2box-rho-every", "l2box-gamma", "l2box-gamma-factor",
        "l2box-max-iter", "l2box-stop", "l2box-std-tol", "l2box-history", "l2box-cg-tol",
        "l2box-cg-max-iter"},
       {M::kL2box}},
      {{"mpec-rho", "mpec-growth", "mpec-every", "mpec-max-iter", "mpec-inner-iter",
        "mpec-inner-tol", "mpec-tol"},
       {M::kMpecEpm, M::kMpecAdm}}};
  return owners;
}

// The densest command's options as typed, before they are checked and parsed.
struct DensestArgs {
  GraphInputArgs input;
  std::string init_mode, init, thresholds, centre, scope, fallback, sizes, methods, output_format;
  std::int64_t seed = 1;
  bool quiet = false;
};

// --size, --method, --output, --output-format.
void add_subgraph_options(po::options_description& desc, DensestOptions& o, DensestArgs& a) {
  desc.add_options()
      ("size", po::value(&a.sizes), "k: the number of nodes of the subgraph (a comma list runs "
       "each size on the graph read once; then no --output)")
      ("method", choice_list<DensestMethod>(&a.methods, "method")->default_value("dpcd"),
       "dpcd (discrete principal coordinate descent), dpcd-0 (DPCD without the neighbourhood "
       "search), peel (greedy peeling), ravi (greedy growth from the heaviest edge), feige (top "
       "k/2 by degree plus best outsiders), tpower (truncated power method), lp (continuous "
       "relaxation, projected gradient), l2box-admm (Wu & Ghanem's lp-box ADMM), mpec-epm or "
       "mpec-adm (Yuan & Ghanem's MPEC exact penalty or alternating direction method); a comma "
       "list runs each")
      ("output", po::value(&o.output), "output file (written atomically)")
      ("output-format", choice<SubgraphFormat>(&a.output_format, "output-format"),
       "hdf5 (/subgraph/nodes, /subgraph/objective, attributes) or text (node ids, one per "
       "line); default: from the --output name (.h5/.hdf5 or .txt), which it must agree with");
}

// The options of DPCD ([DPCD] Alg. 1): initial sets, thresholds, updates, neighbourhood search.
void add_dpcd_options(po::options_description& desc, DensestOptions& o, DensestArgs& a) {
  auto& d = o.dpcd.dpcd;
  desc.add_options()
      ("init", choice_list<dpcd::InitialSet>(&a.init, "init")->default_value("degree,feige,peel,tpower"),
       "dpcd: initial sets tried (comma list of degree, feige, peel, tpower); DPCD starts from "
       "the densest. tpower: a few truncated power iterations from the degree set (on k-NN-like "
       "graphs its basin is often better than peeling's, whose set is already 1-swap optimal)")
      ("init-tpower-iter", po::value(&o.dpcd.tpower_iterations)->default_value(20),
       "dpcd: at most this many truncated power iterations for the tpower initial set")
      ("init-mode", choice<InitMode>(&a.init_mode, "init-mode")->default_value("best"),
       "dpcd: best (DPCD from the densest initial set) or each (DPCD from every initial set, "
       "the densest result kept)")
      ("thresholds", choice<dpcd::ThresholdRule>(&a.thresholds, "thresholds")->default_value("adaptive"),
       "dpcd: adaptive ([DPCD] eq. 7, scaled by alpha1/alpha2) or lipschitz (L0 + eps, "
       "L0 = 2 x largest weighted degree; monotone by construction)")
      ("alpha1", real(&d.alpha1),
       "dpcd: S+ = members with centred gradient > alpha1 L1")
      ("alpha2", real(&d.alpha2),
       "dpcd: S- = non-members with centred gradient < -alpha2 L2")
      ("eps", real(&d.eps),
       "dpcd, lipschitz thresholds: L = L0 + eps * max(L0, 1)")
      ("centre", choice<dpcd::Centre>(&a.centre, "centre")->default_value(to_string(d.centre)),
       "dpcd: constant subtracted from the gradient before eq. 7: split (midway between the "
       "k-th and (k+1)-th largest W x), mean, median or none")
      ("threshold-scope", choice<dpcd::Scope>(&a.scope, "threshold-scope")->default_value(to_string(d.scope)),
       "dpcd: entries the eq. 7 means run over: eligible (positive ones of members, negative "
       "ones of non-members) or all")
      ("fallback", choice<dpcd::Fallback>(&a.fallback, "fallback")->default_value(to_string(d.fallback)),
       "dpcd: when an update did not lower f: halve (retry with half the pairs), lipschitz "
       "(retry with L0 + eps) or none (keep it)")
      ("max-iter", po::value(&d.max_iterations)->default_value(d.max_iterations),
       "dpcd: at most this many principal-coordinate updates")
      ("max-flips", po::value(&d.max_flips)->default_value(d.max_flips),
       "dpcd: at most this many swaps per update (0: no cap)")
      ("ns-every", po::value(&d.ns_every)->default_value(d.ns_every),
       "dpcd: neighbourhood search after every T updates (0: only at stagnation)")
      ("ns-m", po::value(&d.ns_m)->default_value(d.ns_m),
       "dpcd: neighbourhood size m (at most m pair swaps; 0: no neighbourhood search)")
      ("ns-pool", po::value(&d.ns_pool)->default_value(d.ns_pool),
       "dpcd: candidates per side in the neighbourhood search (weakest members, strongest "
       "non-members)")
      ("ns-exhaustive-limit",
       po::value(&d.ns_exhaustive_limit)->default_value(d.ns_exhaustive_limit),
       "dpcd: enumerate every move when there are at most this many, else sample")
      ("ns-samples", po::value(&d.ns_samples)->default_value(d.ns_samples),
       "dpcd: random moves tried when sampling (plus all single swaps and a greedy chain)")
      ("ns-plateau", po::value(&d.ns_plateau)->default_value(d.ns_plateau),
       "dpcd: at most this many zero-gain moves when no improving one is found (the moved "
       "nodes are then frozen)");
}

// Local. The comma list of --size as integers.
std::vector<std::int64_t> parse_sizes(const std::string& sizes) {
  std::vector<std::int64_t> out;
  std::stringstream ks(sizes);
  for (std::string item; std::getline(ks, item, ',');) {
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size())
      throw std::invalid_argument("--size: '" + item + "' is not an integer");
    out.push_back(v);
  }
  return out;
}

// Local. The typed options from the strings; throws std::invalid_argument on a bad value.
void apply_densest_args(const DensestArgs& a, const Parsed& p, DensestOptions& o) {
  auto& d = o.dpcd.dpcd;
  apply_graph_input_args(a.input, o.input);
  o.dpcd.from_each = parse_choice<InitMode>("init-mode", a.init_mode) == InitMode::kEach;
  d.thresholds = parse_choice<dpcd::ThresholdRule>("thresholds", a.thresholds);
  d.centre = parse_choice<dpcd::Centre>("centre", a.centre);
  d.scope = parse_choice<dpcd::Scope>("threshold-scope", a.scope);
  d.fallback = parse_choice<dpcd::Fallback>("fallback", a.fallback);
  o.dpcd.init = parse_choice_list<dpcd::InitialSet>("init", a.init);
  o.methods = parse_choice_list<DensestMethod>("method", a.methods);
  if (!a.output_format.empty())
    o.output_format = parse_choice<SubgraphFormat>("output-format", a.output_format);
  if (a.seed < 0) throw std::invalid_argument("--seed must be >= 0");
  const std::vector<std::int64_t> sizes = parse_sizes(a.sizes);
  o.sizes.insert(o.sizes.end(), sizes.begin(), sizes.end());
  check_option_owners(p.vm, option_owners(), o.methods, "--method");
}

// Collective. The options of args into o (and --quiet in a); false when --help was printed.
bool parse_densest(MPI_Comm comm, const std::vector<std::string>& args, DensestOptions& o,
                   DensestArgs& a) {
  OptionGroups g(
      "usage: [mpirun -n P] lsgl densest --graph G --size k [--method dpcd|dpcd-0|peel|ravi|"
      "feige|tpower|\n         lp|l2box-admm|mpec-epm|mpec-adm] [--output out.h5] [options]\n"
      "\nFinds k nodes with a large x^T W x (dense k-subgraph); reports density = x^T W x / k = "
      "2 *\ninside weight / k.\n");
  add_graph_input_options(g.group("graph", "Graph"), o.graph, o.input, a.input);
  auto& subgraph = g.group("subgraph", "Subgraph, method and output");
  add_subgraph_options(subgraph, o, a);
  subgraph.add_options()
      ("seed", po::value(&a.seed)->default_value(1), "random seed (neighbourhood sampling)")
      ("quiet", flag(&a.quiet), "print only the summary line and errors");
  add_dpcd_options(g.group("dpcd", "DPCD", false), o, a);
  auto& baselines = g.group("baselines", "The baselines", false);
  baselines.add_options()
      ("tpower-max-iter", po::value(&o.tpower_max_iterations)->default_value(100),
       "tpower: iteration cap");
  add_relaxation_options(baselines, o.lp, o.l2box, o.mpec, RelaxationCommand::kDensest);
  const Parsed p = parse(comm, args, g);
  if (p.help) {
    print_help(comm, g, p);
    return false;
  }
  collective_check(comm, p.vm.count("size") > 0, "--size is required");
  lsgl::collectively(comm, [&] { apply_densest_args(a, p, o); });
  o.dpcd.dpcd.seed = static_cast<std::uint64_t>(a.seed);
  o.configuration = effective_configuration(p.vm);
  return true;
}

}  // namespace

DensestOptions densest_options(MPI_Comm comm, const std::vector<std::string>& args) {
  refuse_help_and_config(comm, args);
  DensestOptions o;
  DensestArgs a;
  parse_densest(comm, args, o, a);
  return o;
}

int densest_command(MPI_Comm comm, const std::vector<std::string>& args,
                    const std::string& command_line) {
  DensestOptions o;
  DensestArgs a;
  if (!parse_densest(comm, args, o, a)) return 0;
  o.command_line = command_line;
  run_densest(comm, o,
              *make_printing_monitor(comm, a.quiet ? Verbosity::kSummary : Verbosity::kAll));
  return 0;
}

}  // namespace lsgl::cli
