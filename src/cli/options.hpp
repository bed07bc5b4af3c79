#pragma once
// Shared option handling for the subcommands: long options only (so PETSc's single-dash options
// such as -log_view pass through), an optional --config file that the command line overrides,
// and the effective configuration as text for provenance.
#include <mpi.h>

#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace lsgl::cli {

namespace po = boost::program_options;

struct Parsed {
  po::variables_map vm;
  bool help = false;
};

// Adds --help and --config to a subcommand's options.
void add_common_options(po::options_description& desc);

// Collective (errors are raised on every rank). Parses args (without the program and subcommand
// names) against `desc` (which includes the common options). Unknown --options, stray words and
// config file errors raise CollectiveError. Single-dash words (and their values) are left to PETSc.
Parsed parse(MPI_Comm comm, const std::vector<std::string>& args,
             const po::options_description& desc);

// Local. Parses the text of a config file ("option = value" lines, '#' comments) against
// `desc`; throws a Boost.Program_options error on a malformed or unknown line.
po::parsed_options parse_config_text(const std::string& text, const po::options_description& desc);

// "key = value" lines for every option in vm, sorted by key (the effective configuration).
std::string effective_configuration(const po::variables_map& vm);

// The command line as one string.
std::string join_command_line(int argc, char** argv);

// Prints on rank 0 only.
void print_help(MPI_Comm comm, const std::string& usage, const po::options_description& desc);

}  // namespace lsgl::cli
