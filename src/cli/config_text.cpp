// Config file text (see options.hpp store_config_text); apart from options.cpp so that it builds
// without MPI (tests/fuzz).
#include <map>
#include <sstream>
#include <stdexcept>

#include "options.hpp"

namespace lsgl::cli {

namespace {

// Local. Reads the substitutions Boost keeps protected in its exception.
struct Substitutions : po::error_with_option_name {
  static std::map<std::string, std::string>& of(po::error_with_option_name& e) {
    return e.*(&Substitutions::m_substitutions);
  }
};

// Local. e.what(), with Boost's placeholders in the values defused first.
std::string safe_what(std::exception& e) {
  if (auto* named = dynamic_cast<po::error_with_option_name*>(&e)) defuse_placeholders(*named);
  return e.what();
}

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// Local. The options of one line (none for a blank or comment line); throws the line's error.
std::vector<po::option> line_options(const std::string& line, const po::options_description& desc) {
  if (trimmed(line).rfind('[', 0) == 0)
    throw std::runtime_error("sections are not used ('" + trimmed(line) +
                             "'): write 'option = value' lines");
  std::istringstream in(line);
  std::vector<po::option> options;
  try {
    options = po::parse_config_file(in, desc, true).options;
  } catch (po::error& e) {
    throw std::runtime_error(safe_what(e) + ": expected 'option = value'");
  }
  for (const po::option& o : options) {
    if (!o.unregistered) continue;
    const std::string near = nearest_option(o.string_key, desc);
    throw std::runtime_error("unknown option '" + o.string_key + "'" +
                             (near.empty() ? "" : " (did you mean '" + near + "'?)"));
  }
  return options;
}

}  // namespace

void defuse_placeholders(po::error_with_option_name& e) {
  const std::string zero_width_space = "\u200b";
  for (auto& [name, value] : Substitutions::of(e))
    for (std::size_t at = value.find('%'); at != std::string::npos;
         at = value.find('%', at + 1 + zero_width_space.size()))
      value.insert(at + 1, zero_width_space);
}

void store_config_text(const std::string& text, const std::string& source,
                       const po::options_description& desc, po::variables_map& vm) {
  std::istringstream in(text);
  std::map<std::string, int> first_line;  // option -> the line that set it
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = source + ":" + std::to_string(number) + ": ";
    std::vector<po::option> options;
    try {
      options = line_options(line, desc);
    } catch (const std::exception& e) {
      throw std::runtime_error(where + e.what());
    }
    for (const po::option& o : options) {
      const auto [it, first] = first_line.emplace(o.string_key, number);
      if (!first)
        throw std::runtime_error(where + "'" + o.string_key + "' is already set on line " +
                                 std::to_string(it->second));
      po::parsed_options one(&desc);
      one.options.push_back(o);
      try {
        po::store(one, vm);
      } catch (std::exception& e) {  // Boost's errors, and a choice's (ChoiceValue)
        throw std::runtime_error(where + safe_what(e));
      }
    }
  }
}

}  // namespace lsgl::cli
