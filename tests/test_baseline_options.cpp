// The options of the baselines of [DPCD]'s comparisons, through the command line as users give
// them (lsgl::cli::dispatch): `lsgl densest --method lp | l2box-admm | mpec-epm | mpec-adm |
// dpcd-0` and `lsgl hash train --solver sgm | lp | l2box-admm | mpec-epm`, `--loss fsdh`. Every
// new option out of range, not a number, or given to a method that does not read it is refused
// with a one-line CollectiveError naming it, on every rank, before anything is computed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lsgl/cli/commands.hpp"
#include "lsgl/synth/generate.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "support.hpp"

using namespace lsgl;

namespace {

MPI_Comm world() { return MPI_COMM_WORLD; }

std::string tmpdir() {
  static const std::string dir = lsgl::test::shared_tmpdir("lsgl-baseline-options");
  return dir;
}

// Runs `lsgl ARGS...`; returns the CollectiveError's message ("" when it ran).
std::string refusal(std::vector<std::string> args) {
  args.insert(args.begin(), "lsgl");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  try {
    lsgl::cli::dispatch(world(), static_cast<int>(argv.size()), argv.data());
  } catch (const CollectiveError& e) {
    return e.what();
  }
  return "";
}

const std::string& graph() {
  static const std::string path = [] {
    PowerlawGraphParams p;
    p.n = 400;
    p.edges = 2000;
    p.seed = 3;
    generate_powerlaw_graph(world(), p, tmpdir() + "/g.h5");
    return tmpdir() + "/g.h5";
  }();
  return path;
}

const std::string& data() {
  static const std::string path = [] {
    BlobsParams p;
    p.n = 300;
    p.d = 6;
    p.clusters = 3;
    generate_blobs(world(), p, tmpdir() + "/x.h5");
    return tmpdir() + "/x.h5";
  }();
  return path;
}

void expect_refused(const std::vector<std::string>& args, const std::string& names) {
  const std::string msg = refusal(args);
  std::string cmd;
  for (const auto& a : args) cmd += a + " ";
  EXPECT_NE(msg.find(names), std::string::npos) << cmd << "-> '" << msg << "'";
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

}  // namespace

TEST(DensestOptions, OutOfRangeAndNotANumberAreRefused) {
  const std::string g = graph();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"lp", "--lp-max-iter", "0"}, "--lp-max-iter"},
      {{"lp", "--lp-tol", "-1"}, "--lp-tol"},
      {{"lp", "--lp-tol", "nan"}, "--lp-tol"},
      {{"l2box-admm", "--l2box-rho", "0"}, "--l2box-rho"},
      {{"l2box-admm", "--l2box-rho", "inf"}, "--l2box-rho"},
      {{"l2box-admm", "--l2box-rho-growth", "0.9"}, "--l2box-rho-growth"},
      {{"l2box-admm", "--l2box-rho-every", "0"}, "--l2box-rho-every"},
      {{"l2box-admm", "--l2box-gamma", "-2"}, "--l2box-gamma"},
      {{"l2box-admm", "--l2box-gamma-factor", "1.5"}, "--l2box-gamma-factor"},
      {{"l2box-admm", "--l2box-max-iter", "0"}, "--l2box-max-iter"},
      {{"l2box-admm", "--l2box-stop", "nan"}, "--l2box-stop"},
      {{"l2box-admm", "--l2box-std-tol", "-1e-3"}, "--l2box-std-tol"},
      {{"l2box-admm", "--l2box-history", "1"}, "--l2box-history"},
      {{"l2box-admm", "--l2box-cg-tol", "0"}, "--l2box-cg-tol"},
      {{"l2box-admm", "--l2box-cg-max-iter", "0"}, "--l2box-cg-max-iter"},
      {{"mpec-epm", "--mpec-rho", "0"}, "--mpec-rho"},
      {{"mpec-adm", "--mpec-growth", "0.5"}, "--mpec-growth"},
      {{"mpec-epm", "--mpec-every", "0"}, "--mpec-every"},
      {{"mpec-adm", "--mpec-max-iter", "0"}, "--mpec-max-iter"},
      {{"mpec-epm", "--mpec-inner-iter", "0"}, "--mpec-inner-iter"},
      {{"mpec-adm", "--mpec-inner-tol", "-1"}, "--mpec-inner-tol"},
      {{"mpec-epm", "--mpec-tol", "nan"}, "--mpec-tol"},
      {{"lp", "--lp-max-iter", "ten"}, "--lp-max-iter"},
  };
  for (const auto& [extra, name] : cases) {
    std::vector<std::string> args = {"densest", "--graph", g, "--size", "5", "--quiet", "--method"};
    args.insert(args.end(), extra.begin(), extra.end());
    expect_refused(args, name);
  }
}

TEST(DensestOptions, AMethodsOptionsAreRefusedForAnother) {
  const std::string g = graph();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"lp", "--alpha1", "2"},
       "--alpha1 is an option of --method dpcd, dpcd-0, not of --method lp"},
      {{"dpcd-0", "--ns-m", "3"}, "--ns-m is an option of --method dpcd, not of --method dpcd-0"},
      {{"dpcd", "--lp-tol", "1e-3"}, "--lp-tol"},
      {{"lp,mpec-epm", "--l2box-rho", "3"}, "not of --method lp,mpec-epm"},
      {{"l2box-admm", "--mpec-rho", "1"}, "--mpec-rho is an option of --method mpec-epm, mpec-adm"},
      {{"peel", "--tpower-max-iter", "3"}, "--tpower-max-iter"},
      {{"ravi", "--seed", "3"}, "--seed"},
      {{"mpec-adm", "--l2box-cg-tol", "0.1"}, "--l2box-cg-tol"},
  };
  for (const auto& [extra, text] : cases) {
    std::vector<std::string> args = {"densest", "--graph", g, "--size", "5", "--quiet", "--method"};
    args.insert(args.end(), extra.begin(), extra.end());
    expect_refused(args, text);
  }
  // An option read by one of the listed methods is accepted, and the run goes through.
  EXPECT_EQ(refusal({"densest", "--graph", g, "--size", "5", "--quiet", "--method",
                     "lp,l2box-admm,dpcd-0", "--l2box-max-iter", "3", "--lp-tol", "1e-3",
                     "--alpha1", "0.7"}),
            "");
  // From a --config file the same check applies.
  if (comm_rank(world()) == 0) {
    FILE* f = std::fopen((tmpdir() + "/c.ini").c_str(), "w");
    std::fputs("method = peel\nmpec-rho = 0.1\n", f);
    std::fclose(f);
  }
  MPI_Barrier(world());
  expect_refused({"densest", "--graph", g, "--size", "5", "--config", tmpdir() + "/c.ini"},
                 "--mpec-rho is an option of --method mpec-epm, mpec-adm, not of --method peel");
}

TEST(HashTrainOptions, NewSolverOptionsAreChecked) {
  const std::string x = data();
  const std::vector<std::string> base = {
      "hash",       "train", "--input", x,          "--labels",        x, "--bits", "4",
      "--features", "raw",   "--quiet", "--output", tmpdir() + "/m.h5"};
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--solver", "sgm", "--sgm-max-iter", "0"}, "--sgm-max-iter"},
      {{"--solver", "lp", "--lp-max-iter", "0"}, "--lp-max-iter"},
      {{"--solver", "lp", "--lp-tol", "nan"}, "--lp-tol"},
      {{"--solver", "l2box-admm", "--l2box-gamma-factor", "2"}, "--l2box-gamma-factor"},
      {{"--solver", "l2box-admm", "--l2box-rho", "-1"}, "--l2box-rho"},
      {{"--solver", "mpec-epm", "--mpec-rho", "inf"}, "--mpec-rho"},
      {{"--solver", "mpec-epm", "--mpec-every", "0"}, "--mpec-every"},
      {{"--solver", "lp", "--alpha1", "2"},
       "--alpha1 is an option of --solver dpcd, not of --solver lp"},
      {{"--solver", "dpcd", "--mpec-rho", "2"}, "--mpec-rho is an option of --solver mpec-epm"},
      {{"--solver", "dcc", "--sgm-max-iter", "3"}, "--sgm-max-iter"},
      {{"--solver", "mpec-epm", "--l2box-rho", "3"}, "--l2box-rho"},
      {{"--solver", "sgm", "--dcc-sweeps", "3"}, "--dcc-sweeps"},
      {{"--solver", "magic"}, "unknown --solver 'magic'"},
      {{"--loss", "magic"}, "unknown --loss 'magic'"},
      {{"--loss", "itq", "--solver", "lp"}, "--solver lp needs --loss sdh"},
      {{"--loss", "fsdh", "--solver", "mpec-epm"}, "--solver mpec-epm needs --loss sdh"},
      {{"--loss", "fsdh", "--solver", "dcc"}, "--solver dcc needs --loss sdh"},
      {{"--loss", "sdh", "--solver", "sign"}, "--solver sign"},
      {{"--loss", "fsdh", "--solver", "dpcd", "--balanced"}, "--balanced"},
  };
  for (const auto& [extra, name] : cases) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    expect_refused(args, name);
  }
  // FSDH is supervised.
  expect_refused({"hash", "train", "--input", x, "--bits", "4", "--loss", "fsdh", "--quiet",
                  "--output", tmpdir() + "/m.h5"},
                 "--loss fsdh is supervised");
}
