// `lsgl hash train | encode | eval`: options -> pipelines.
#include "commands_impl.hpp"
#include "lsgl/cli/choices.hpp"
#include "lsgl/cli/command_options.hpp"
#include "lsgl/pipeline/hash.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "option_owners.hpp"
#include "options.hpp"
#include "printing_monitor.hpp"
#include "relaxation_options.hpp"

namespace lsgl::cli {

namespace {

// The B-step solvers that read each solver-specific option of `hash train`.
const std::vector<OptionOwner<hash::BSolver>>& train_option_owners() {
  using S = hash::BSolver;
  static const std::vector<OptionOwner<S>> owners = {
      {{"max-iter", "thresholds", "one-per-code", "alpha1", "alpha2", "ns-every", "ns-m",
        "balanced"},
       {S::kDpcd}},
      {{"dcc-sweeps"}, {S::kDcc}},
      {{"sgm-max-iter"}, {S::kSgm}},
      {{"lp-max-iter", "lp-tol"}, {S::kLp}},
      {{"l2box-rho", "l2box-rho-growth", "l2box-rho-every", "l2box-gamma", "l2box-gamma-factor",
        "l2box-max-iter", "l2box-stop", "l2box-std-tol", "l2box-history"},
       {S::kL2box}},
      {{"mpec-rho", "mpec-growth", "mpec-every", "mpec-max-iter", "mpec-inner-iter", "mpec-tol"},
       {S::kMpecEpm}}};
  return owners;
}

const char* kHashUsage =
    "usage: [mpirun -n P] lsgl hash <train|encode|eval> [options]\n"
    "\n"
    "Binary hash codes for fast retrieval ([DPCD]'s hashing showcase):\n"
    "  train    learn codes B and the hash function h(x) = sgn(P^T phi(x)) from data (and\n"
    "           labels for the supervised SDH loss); writes the model and the training set's\n"
    "           codes (the database)\n"
    "  encode   codes of new data with a model (e.g. the queries)\n"
    "  eval     Hamming ranking of the database for every query: MAP and Precision@500\n"
    "\n"
    "'lsgl hash <command> --help' explains each command's options.\n";

// The train command's options as typed, before they are parsed.
struct TrainArgs {
  std::string metric, loss, solver, features, thresholds, input_format;
  std::int64_t seed = 1;
  bool quiet = false;
};

// The training data and the model file: --input ... --output.
void add_train_data_options(po::options_description& desc, HashTrainOptions& o, TrainArgs& a) {
  desc.add_options()
      ("input", po::value(&o.input), "training data: HDF5 (--dataset), .npy, CSV/TSV text or "
       "IDX (all but HDF5 may be .gz); one sample per row")
      ("input-format", choice<DataFormat>(&a.input_format, "input-format")->default_value("auto"),
       "format of --input: auto (from the name), hdf5, npy, idx or csv")
      ("dataset", po::value(&o.dataset)->default_value(o.dataset), "HDF5 dataset of --input")
      ("metric", choice<Metric>(&a.metric, "metric")->default_value(to_string(o.metric)),
       "euclidean, or cosine: rows scaled to unit norm before training (stored in the model; "
       "'hash encode' scales its rows the same way)")
      ("labels", po::value(&o.labels), "labels of the training samples (IDX, .npy or HDF5 "
       "--labels-dataset); required by --loss sdh, stored with the database codes")
      ("labels-dataset", po::value(&o.labels_dataset)->default_value(o.labels_dataset),
       "HDF5 dataset of --labels")
      ("output", po::value(&o.output), "model file to write (HDF5, written atomically)");
}

// The code length, loss, B-step solver and their parameters, --seed, --chunk, --quiet.
void add_train_options(po::options_description& desc, HashTrainOptions& o, TrainArgs& a) {
  hash::TrainOptions& t = o.train;
  desc.add_options()
      ("bits", po::value(&t.bits)->default_value(t.bits), "code length r (1 to 1024)")
      ("loss", choice<hash::Loss>(&a.loss, "loss")->default_value("sdh"),
       "sdh (supervised: ||Y - W^T B||^2 + beta ||W||^2 + nu ||B - P^T phi||^2), fsdh "
       "(supervised, Gui et al.: ||B - W^T Y||^2 + beta ||W||^2 + nu ||B - P^T phi||^2) or itq "
       "(unsupervised: ||B - V R||^2, V the PCA projection, R a rotation)")
      ("solver", choice<hash::BSolver>(&a.solver, "solver")->default_value("dpcd"),
       "B-step: dpcd (discrete principal coordinate descent; every loss); on sdh also dcc "
       "(SDH's bit-by-bit cyclic coordinate descent), sgm (signed gradient), lp (box relaxation, "
       "projected gradient, sign), l2box-admm (Wu & Ghanem's lp-box ADMM) or mpec-epm (Yuan & "
       "Ghanem's exact penalty); on itq and fsdh also sign (the closed form sgn(c))")
      ("features", choice<hash::FeatureKind>(&a.features, "features"),
       "rbf (exp(-||x - a||^2 / 2 sigma^2) over --anchors training samples; default for sdh "
       "and fsdh) or raw (the input columns; default for itq); centred either way")
      ("anchors", po::value(&t.anchors)->default_value(t.anchors), "rbf: number of anchors")
      ("alternations", po::value(&t.alternations)->default_value(t.alternations),
       "sdh: W-step / P-step / B-step rounds ([DPCD]: 5)")
      ("itq-iterations", po::value(&t.itq_iterations)->default_value(t.itq_iterations),
       "itq: B-step / rotation rounds")
      ("beta", real(&t.beta),
       "sdh, fsdh: ridge of the W-step (FSDH's lambda)")
      ("lambda", real(&t.lambda), "ridge of the hash projection P")
      ("nu", real(&t.nu),
       "sdh, fsdh: weight of ||B - P^T phi||^2 in the B-step (SDH's 1e-5; 0 gives [DPCD]'s "
       "loss)")
      ("balanced", flag(&t.balanced),
       "dpcd, sdh: balanced codes: exactly half of all training bits are +1 (DPCD on the fixed "
       "count domain)")
      ("seed", po::value(&a.seed)->default_value(1), "random seed (initial codes, anchors, ITQ's "
       "rotation, neighbourhood sampling)")
      ("chunk", po::value(&t.chunk)->default_value(t.chunk),
       "samples per chunk of the reproducible sums (the results do not depend on the number "
       "of ranks; ranks hold whole chunks)")
      ("quiet", flag(&a.quiet), "print only the summary and errors");
}

// DPCD's B-step ([DPCD] Alg. 1): updates, thresholds, neighbourhood search.
void add_train_dpcd_options(po::options_description& desc, hash::TrainOptions& t,
                            TrainArgs& a) {
  desc.add_options()
      ("max-iter", po::value(&t.dpcd.max_iterations)->default_value(t.dpcd.max_iterations),
       "dpcd: principal-coordinate updates per B-step ([DPCD]: 20)")
      ("thresholds", choice<dpcd::ThresholdRule>(&a.thresholds, "thresholds")->default_value("coordinate"),
       "dpcd: coordinate (a bit is principal when flipping it alone lowers the loss: threshold "
       "2 (W W^T)_kk; all principal bits flip together), adaptive ([DPCD] eq. 7, scaled by "
       "alpha1/alpha2) or lipschitz (L0 + eps, L0 = 2 x largest eigenvalue of W W^T)")
      ("one-per-code", flag(&t.dpcd.one_per_block),
       "dpcd: flip at most one bit of each code per update (the best); with coordinate "
       "thresholds every update then lowers the loss (slower: more updates)")
      ("alpha1", real(&t.dpcd.alpha1),
       "dpcd: flip +1 bits whose gradient exceeds alpha1 L1")
      ("alpha2", real(&t.dpcd.alpha2),
       "dpcd: flip -1 bits whose gradient is below -alpha2 L2")
      ("ns-every", po::value(&t.dpcd.ns_every)->default_value(t.dpcd.ns_every),
       "dpcd: neighbourhood search after every T updates ([DPCD]: 10)")
      ("ns-m", po::value(&t.dpcd.ns_m)->default_value(t.dpcd.ns_m),
       "dpcd: at most m flips in the neighbourhood search ([DPCD]: 5; 0: none)");
}

// The baselines' B-step solvers: dcc, sgm and the continuous relaxations.
void add_train_baseline_options(po::options_description& desc, hash::TrainOptions& t) {
  desc.add_options()
      ("dcc-sweeps", po::value(&t.dcc_sweeps)->default_value(t.dcc_sweeps),
       "dcc: at most this many sweeps over the bits per B-step")
      ("sgm-max-iter", po::value(&t.sgm_iterations)->default_value(t.sgm_iterations),
       "sgm: at most this many sign updates per B-step");
  add_relaxation_options(desc, t.lp, t.l2box, t.mpec, RelaxationCommand::kHash);
}

// Local. The typed options from the strings; throws std::invalid_argument on a bad value.
void apply_train_args(const TrainArgs& a, const Parsed& p, HashTrainOptions& o) {
  hash::TrainOptions& t = o.train;
  o.metric = parse_choice<Metric>("metric", a.metric);
  o.input_format = parse_choice<DataFormat>("input-format", a.input_format);
  t.loss = parse_choice<hash::Loss>("loss", a.loss);
  t.solver = parse_choice<hash::BSolver>("solver", a.solver);
  t.features = a.features.empty()
                   ? (t.loss == hash::Loss::kItq ? hash::FeatureKind::kRaw
                                                 : hash::FeatureKind::kRbf)
                   : parse_choice<hash::FeatureKind>("features", a.features);
  check_option_owners(p.vm, train_option_owners(), {t.solver}, "--solver");
  t.dpcd.thresholds = parse_choice<dpcd::ThresholdRule>("thresholds", a.thresholds);
  if (a.seed < 0) throw std::invalid_argument("--seed must be >= 0");
}

// Collective. The options of args into o (and --quiet in a); false when --help was printed.
bool parse_train(MPI_Comm comm, const std::vector<std::string>& args, HashTrainOptions& o,
                 TrainArgs& a) {
  hash::TrainOptions& t = o.train;
  OptionGroups g(
      "usage: [mpirun -n P] lsgl hash train --input X [--labels Y] --bits r --output model.h5\n"
      "         [--loss sdh|fsdh|itq] [--solver dpcd|dcc|sgm|lp|l2box-admm|mpec-epm|sign]\n"
      "         [--features rbf|raw] [options]\n");
  add_train_data_options(g.group("data", "Data and model file"), o, a);
  add_train_options(g.group("codes", "Codes, loss and B-step solver"), o, a);
  add_train_dpcd_options(g.group("dpcd", "DPCD's B-step", false), t, a);
  add_train_baseline_options(g.group("baselines", "The baselines' B-step solvers", false), t);
  const Parsed p = parse(comm, args, g);
  if (p.help) {
    print_help(comm, g, p);
    return false;
  }
  collectively(comm, [&] { apply_train_args(a, p, o); });
  t.seed = static_cast<std::uint64_t>(a.seed);
  t.dpcd.seed = t.seed;
  o.configuration = effective_configuration(p.vm);
  return true;
}

int train(MPI_Comm comm, const std::vector<std::string>& args, const std::string& command_line) {
  HashTrainOptions o;
  TrainArgs a;
  if (!parse_train(comm, args, o, a)) return 0;
  collective_check(comm, !o.input.empty(), "--input is required");
  o.command_line = command_line;
  run_hash_train(comm, o,
                 *make_printing_monitor(comm, a.quiet ? Verbosity::kSummary : Verbosity::kAll));
  return 0;
}

int encode(MPI_Comm comm, const std::vector<std::string>& args, const std::string& command_line) {
  HashEncodeOptions o;
  std::int64_t seed = 1;
  std::string input_format;
  bool quiet = false;
  OptionGroups g(
      "usage: [mpirun -n P] lsgl hash encode --model model.h5 --input X [--labels Y] "
      "[--per-class 100]\n         --output codes.h5\n");
  g.group("encode", "Options").add_options()
      ("model", po::value(&o.model), "model file written by 'lsgl hash train'")
      ("input", po::value(&o.input), "data to encode (same formats and columns as training)")
      ("input-format", choice<DataFormat>(&input_format, "input-format")->default_value("auto"),
       "format of --input: auto (from the name), hdf5, npy, idx or csv")
      ("dataset", po::value(&o.dataset)->default_value(o.dataset), "HDF5 dataset of --input")
      ("labels", po::value(&o.labels), "their labels (stored with the codes, needed by eval)")
      ("labels-dataset", po::value(&o.labels_dataset)->default_value(o.labels_dataset),
       "HDF5 dataset of --labels")
      ("per-class", po::value(&o.per_class)->default_value(0),
       "encode only this many rows of each label, drawn with --seed (0: all rows)")
      ("seed", po::value(&seed)->default_value(1), "random seed of --per-class")
      ("output", po::value(&o.output), "codes file to write (HDF5 /hash/codes, uint8, bits "
       "packed row by row, bit k in bit k%8 of byte k/8)")
      ("quiet", flag(&quiet), "print only the summary and errors");
  const Parsed p = parse(comm, args, g);
  if (p.help) {
    print_help(comm, g, p);
    return 0;
  }
  collective_check(comm, p.vm.count("model") > 0 && p.vm.count("input") > 0,
                   "--model and --input are required");
  collective_check(comm, seed >= 0, "--seed must be >= 0");
  lsgl::collectively(comm, [&] {
    o.input_format = parse_choice<DataFormat>("input-format", input_format);
  });
  o.seed = static_cast<std::uint64_t>(seed);
  o.command_line = command_line;
  o.configuration = effective_configuration(p.vm);
  run_hash_encode(comm, o,
                  *make_printing_monitor(comm, quiet ? Verbosity::kSummary : Verbosity::kAll));
  return 0;
}

int eval(MPI_Comm comm, const std::vector<std::string>& args) {
  HashEvalOptions o;
  bool quiet = false;
  OptionGroups g(
      "usage: [mpirun -n P] lsgl hash eval --queries q.h5 --database model.h5 [--json "
      "out.json]\n");
  g.group("eval", "Options").add_options()
      ("queries", po::value(&o.queries), "query codes (from 'lsgl hash encode', with labels)")
      ("database", po::value(&o.database),
       "database codes: a model file (its training codes) or a codes file, with labels")
      ("top", po::value(&o.top)->default_value(o.top), "k of Precision@k")
      ("json", po::value(&o.json), "also write the results as one JSON object to this file")
      ("quiet", flag(&quiet), "print nothing but errors");
  const Parsed p = parse(comm, args, g);
  if (p.help) {
    print_help(comm, g, p);
    return 0;
  }
  run_hash_eval(comm, o,
                *make_printing_monitor(comm, quiet ? Verbosity::kNothing : Verbosity::kAll));
  return 0;
}

}  // namespace

HashTrainOptions hash_train_options(MPI_Comm comm, const std::vector<std::string>& args) {
  refuse_help_and_config(comm, args);
  HashTrainOptions o;
  TrainArgs a;
  parse_train(comm, args, o, a);
  return o;
}

int hash_command(MPI_Comm comm, const std::vector<std::string>& args,
                 const std::string& command_line) {
  const std::string sub = args.empty() ? "" : args[0];
  const std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  if (sub.empty() || sub == "--help" || sub == "help") {
    if (comm_rank(comm) == 0) std::fputs(kHashUsage, stdout);
    return sub.empty() ? 1 : 0;
  }
  if (sub == "train") return train(comm, rest, command_line);
  if (sub == "encode") return encode(comm, rest, command_line);
  if (sub == "eval") return eval(comm, rest);
  collective_check(comm, false,
                   "unknown hash command '" + sub +
                       "' (train, encode or eval; try 'lsgl hash --help')");
  return 1;
}

}  // namespace lsgl::cli
