#pragma once
// Options that name one of a fixed set of choices (--model, --solver, --ann, --metric, ...): each
// is parsed here, once, into its enum (the names come from the enum's table, util/names.hpp), with
// one message for a name that is not in the table. Nothing below the command line compares an
// option's string. Local: call inside lsgl::collectively (every rank parses the same words).
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "lsgl/util/names.hpp"

namespace lsgl::cli {

// The value of E named `value`; std::invalid_argument
// "unknown --option 'value' (expected a, b or c)" otherwise.
template <class E>
E parse_choice(const std::string& option, const std::string& value) {
  if (const auto v = value_named<E>(value)) return *v;
  throw std::invalid_argument("unknown --" + option + " '" + value + "' (expected " +
                              names_list<E>() + ")");
}

// A comma list of choices ("a,b"), empty items skipped, each parsed by parse_choice.
template <class E>
std::vector<E> parse_choice_list(const std::string& option, const std::string& list) {
  std::vector<E> out;
  std::stringstream items(list);
  for (std::string item; std::getline(items, item, ',');)
    if (!item.empty()) out.push_back(parse_choice<E>(option, item));
  return out;
}

}  // namespace lsgl::cli
