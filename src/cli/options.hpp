#pragma once
// Shared option handling for the subcommands: long options only (so PETSc's single-dash options
// such as -log_view pass through), an optional --config file that the command line overrides,
// the options in titled groups for --help, and the effective configuration as text for
// provenance.
//
// One convention for on/off options (flags) in every command: `--quiet` sets it,
// `--quiet=true|false` and `--quiet true|false` are accepted too (also yes/no, on/off, 1/0),
// and a --config file says `quiet = true`.
#include <mpi.h>

#include <boost/program_options.hpp>
#include <memory>
#include <string>
#include <vector>

#include "lsgl/cli/choices.hpp"

namespace lsgl::cli {

namespace po = boost::program_options;

// A command's options in titled groups. A bare --help prints the usage and the common groups,
// `--help GROUP` one group, `--help all` every group; parse() reads all of them and the
// options every command has (--help, --config).
class OptionGroups {
 public:
  explicit OptionGroups(std::string usage) : usage_(std::move(usage)) {}
  // Local. A new group, `topic` its word for --help TOPIC, `title` its heading; a bare --help
  // shows it when `common`.
  po::options_description& group(const std::string& topic, const std::string& title,
                                 bool common = true);
  // Local. Every option of the groups and --help, --config (built on the first call).
  const po::options_description& all();
  // Local. The help text for `topic` ("" for the common groups); throws std::invalid_argument
  // on an unknown topic.
  std::string help_text(const std::string& topic);

 private:
  struct Group {
    std::string topic, title;
    bool common = true;
    std::unique_ptr<po::options_description> options;
  };
  std::string usage_;
  std::vector<Group> groups_;
  std::unique_ptr<po::options_description> all_;
};

struct Parsed {
  po::variables_map vm;
  bool help = false;
  std::string help_topic;  // the word after --help ("" for none)
};

// An option naming one of E's choices (with `list`, a comma list of them), checked when the
// option is stored, so that a config file's bad choice is refused with its FILE:LINE like any
// other bad value; the words go to the target, converted by parse_choice afterwards. An empty
// value is left to the command (some read it as "from the file name").
template <class E>
class ChoiceValue : public po::typed_value<std::string> {
 public:
  ChoiceValue(std::string* target, std::string option, bool list)
      : po::typed_value<std::string>(target), option_(std::move(option)), list_(list) {}
  void xparse(boost::any& store, const std::vector<std::string>& tokens) const override {
    for (const std::string& t : tokens)
      if (list_) parse_choice_list<E>(option_, t);
      else if (!t.empty()) parse_choice<E>(option_, t);
    po::typed_value<std::string>::xparse(store, tokens);
  }

 private:
  std::string option_;
  bool list_;
};

// Local. The value of the option `option` naming one of E's choices (see ChoiceValue).
template <class E>
po::typed_value<std::string>* choice(std::string* target, const std::string& option) {
  return new ChoiceValue<E>(target, option, false);
}

// Local. The value of the option `option` naming a comma list of E's choices.
template <class E>
po::typed_value<std::string>* choice_list(std::string* target, const std::string& option) {
  return new ChoiceValue<E>(target, option, true);
}

// Local. An on/off option in the convention above, default off.
po::typed_value<bool>* flag(bool* target);

// Local. A floating-point option whose default, *target, prints as typed (as_typed).
po::typed_value<double>* real(double* target);

// Local. `x` as typed in the source: the shortest decimal that reads back as x ("1e-06", not
// "9.9999999999999995e-07"), for the default of a floating-point option.
std::string as_typed(double x);

// Collective (errors are raised on every rank). Parses args (without the program and subcommand
// names) against the groups' options. Unknown --options (with the nearest option as a
// suggestion), stray words and config file errors (naming FILE:LINE) raise CollectiveError.
// Single-dash words (and their values) are left to PETSc.
Parsed parse(MPI_Comm comm, const std::vector<std::string>& args, OptionGroups& groups);

// Local. Stores the options of a config file's text ("option = value" lines, '#' comments) into
// vm (options already stored there win); throws std::runtime_error naming `source`:LINE on an
// unknown option (with a suggestion), a malformed line, a bad value or an option set twice.
void store_config_text(const std::string& text, const std::string& source,
                       const po::options_description& desc, po::variables_map& vm);

// Local. Makes e.what() safe to call: Boost 1.74 formats the message by replacing each
// %placeholder% with its value until none is left, so a value that contains its own placeholder
// ("--seed 7%value%") loops forever; this breaks every placeholder inside the values with a
// zero-width space (invisible in the message).
void defuse_placeholders(po::error_with_option_name& e);

// Local. The option of `desc` nearest to `name` (no dashes, no "=value") that a typo would
// explain (edit distance with transpositions, small for the length; or a unique completion of a
// prefix), "" when there is none.
std::string nearest_option(const std::string& name, const po::options_description& desc);

// "key = value" lines for every option in vm, sorted by key (the effective configuration).
std::string effective_configuration(const po::variables_map& vm);

// The command line as one string.
std::string join_command_line(int argc, char** argv);

// Collective. Prints groups.help_text(p.help_topic) on rank 0; an unknown topic raises
// CollectiveError on every rank.
void print_help(MPI_Comm comm, OptionGroups& groups, const Parsed& p);

}  // namespace lsgl::cli
