#include "options.hpp"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "lsgl/util/error.hpp"
#include "petsc_options.hpp"
#include "lsgl/util/file_identity.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl::cli {

namespace {

// Reads `file` (a regular file; a directory or a read error is an error, not an empty file).
void store_config_file(const std::string& file, const po::options_description& desc,
                       po::variables_map& vm) {
  struct stat st {};
  if (stat(file.c_str(), &st) != 0)
    throw std::runtime_error("cannot read config file '" + file + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw std::runtime_error("cannot read config file '" + file + "': not a regular file");
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read config file '" + file + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw std::runtime_error("cannot read config file '" + file + "'");
  store_config_text(text.str(), file, desc, vm);
}

// Every floating-point option must be a finite number (Boost reads "inf" and "nan").
void check_finite(const po::variables_map& vm) {
  for (const auto& [key, value] : vm) {
    const double* x = boost::any_cast<double>(&value.value());
    if (x && !std::isfinite(*x)) {
      std::ostringstream s;
      s << "--" << key << " must be a finite number (got " << *x << ")";
      throw std::runtime_error(s.str());
    }
  }
}

// The --config file is an input of every command: no output option may name it.
void check_config_not_an_output(const po::variables_map& vm) {
  if (!vm.count("config")) return;
  const std::string config = vm["config"].as<std::string>();
  for (const char* option : {"output", "checkpoint", "json", "embedding", "csv"}) {
    const std::string* out = vm.count(option) ? boost::any_cast<std::string>(&vm[option].value())
                                              : nullptr;
    if (out && !out->empty() && same_file(*out, config))
      throw std::runtime_error("--" + std::string(option) + " '" + *out +
                               "' is the same file as the input --config '" + config +
                               "'; it would be overwritten");
  }
}


// The words Boost reads as a flag's value.
bool is_flag_value(std::string w) {
  for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* v : {"true", "false", "yes", "no", "on", "off", "1", "0"})
    if (w == v) return true;
  return false;
}

// The command line for Boost: a flag gets its value after '=' (`--quiet` -> `--quiet=true`,
// `--quiet false` -> `--quiet=false`), since Boost would take any next word not starting with
// "--" (such as PETSc's -log_view) as its value; `--help [GROUP]` is taken out into *help.
std::vector<std::string> explicit_flags(const std::vector<std::string>& args,
                                        const po::options_description& desc,
                                        std::optional<std::string>* help) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& w = args[i];
    const bool has_next = i + 1 < args.size();
    if (w == "--help" || w.rfind("--help=", 0) == 0) {
      const bool topic_next = w == "--help" && has_next && args[i + 1].rfind('-', 0) != 0;
      *help = w == "--help" ? (topic_next ? args[++i] : std::string()) : w.substr(7);
      continue;
    }
    const auto* o = w.rfind("--", 0) == 0 && w.find('=') == std::string::npos
                        ? desc.find_nothrow(w.substr(2), false)
                        : nullptr;
    if (!o || !dynamic_cast<const po::typed_value<bool>*>(o->semantic().get())) {
      out.push_back(w);
      continue;
    }
    out.push_back(w + "=" + (has_next && is_flag_value(args[i + 1]) ? args[++i] : "true"));
  }
  return out;
}

// Local. Throws for an unknown --option, with the nearest one as a suggestion.
[[noreturn]] void refuse_unknown(const std::string& word, const po::options_description& desc) {
  const std::string name = word.substr(2, word.find('=') - 2);
  const std::string near = nearest_option(name, desc);
  throw std::runtime_error("unknown option '" + word + "'" +
                           (near.empty() ? "" : " (did you mean --" + near + "?)") +
                           " (see --help)");
}

// Local. parse() on this rank.
Parsed parse_here(const std::vector<std::string>& args, const po::options_description& desc) {
  Parsed p;
  namespace cls = po::command_line_style;
  const auto style = cls::unix_style & ~cls::allow_short & ~cls::allow_guessing;
  std::optional<std::string> help;
  po::parsed_options parsed = po::command_line_parser(explicit_flags(args, desc, &help))
                                  .options(desc)
                                  .style(style)
                                  .allow_unregistered()
                                  .run();
  // Leftovers: PETSc options start with a single '-'; a word after one is its value.
  const auto rest = po::collect_unrecognized(parsed.options, po::include_positional);
  bool after_petsc_option = false;
  for (const auto& w : rest) {
    if (w.rfind("--", 0) == 0) refuse_unknown(w, desc);
    if (w.size() > 1 && w[0] == '-') {
      check_single_dash_option(w, desc);
      after_petsc_option = true;
      continue;
    }
    if (!after_petsc_option)
      throw std::runtime_error("unexpected argument '" + w + "' (see --help)");
    after_petsc_option = false;
  }
  po::store(parsed, p.vm);
  if (p.vm.count("config")) store_config_file(p.vm["config"].as<std::string>(), desc, p.vm);
  p.help = help.has_value();
  p.help_topic = help.value_or("");
  if (!p.help) po::notify(p.vm);
  check_finite(p.vm);
  check_config_not_an_output(p.vm);
  return p;
}

}  // namespace

Parsed parse(MPI_Comm comm, const std::vector<std::string>& args, OptionGroups& groups) {
  Parsed p;
  lsgl::collectively(comm, [&] {
    try {
      p = parse_here(args, groups.all());
    } catch (po::error_with_option_name& e) {
      defuse_placeholders(e);
      throw;
    }
  });
  return p;
}

std::string effective_configuration(const po::variables_map& vm) {
  std::map<std::string, std::string> kv;
  for (const auto& [key, value] : vm) {
    if (key == "help" || key == "config") continue;
    const boost::any& a = value.value();
    std::ostringstream s;
    s.precision(17);
    if (auto x = boost::any_cast<int>(&a)) s << *x;
    else if (auto x = boost::any_cast<double>(&a)) s << *x;
    else if (auto x = boost::any_cast<std::string>(&a)) s << *x;
    else if (auto x = boost::any_cast<std::int64_t>(&a)) s << *x;
    else if (auto x = boost::any_cast<std::uint64_t>(&a)) s << *x;
    else if (auto x = boost::any_cast<bool>(&a)) s << (*x ? "true" : "false");
    else s << "?";
    kv[key] = s.str();
  }
  std::string out;
  for (const auto& [k, v] : kv) out += k + " = " + v + "\n";
  return out;
}

std::string join_command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += argv[i];
  }
  return s;
}

void print_help(MPI_Comm comm, OptionGroups& groups, const Parsed& p) {
  std::string text;
  lsgl::collectively(comm, [&] { text = groups.help_text(p.help_topic); });
  if (comm_rank(comm) == 0) std::fputs(text.c_str(), stdout);
}

}  // namespace lsgl::cli
