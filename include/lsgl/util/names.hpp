#pragma once
// Names of the values of an enumerated choice (a model, a solver, an engine, ...): one table per
// enum, read both ways. Output files and summaries take a value's name from it (to_string); the
// command line (src/cli/choices.hpp) and readers of files that store a name (hash models) look a
// name up in it. An enum E takes part by declaring, in its own namespace,
//   inline constexpr Named<E> kENames[] = {{E::kA, "a"}, {E::kB, "b"}};
//   constexpr const auto& names(E) { return kENames; }
// (found by argument-dependent lookup). Local.
#include <optional>
#include <string>
#include <type_traits>

namespace lsgl {

template <class E>
struct Named {
  E value;
  const char* name;
};

// The name of v ("?" for a value missing from the table).
template <class E, class = decltype(names(E{}))>
const char* name_of(E v) {
  for (const Named<E>& n : names(E{}))
    if (n.value == v) return n.name;
  return "?";
}

// The name of v as a string, for attributes and summaries.
template <class E, class = decltype(names(E{}))>
std::string to_string(E v) {
  return name_of(v);
}

// The value named `name`, if the table has it.
template <class E>
std::optional<E> value_named(const std::string& name) {
  for (const Named<E>& n : names(E{}))
    if (name == n.name) return n.value;
  return std::nullopt;
}

// Every name of the table as "a, b or c".
template <class E>
std::string names_list() {
  const auto& table = names(E{});
  const std::size_t count = std::extent_v<std::remove_reference_t<decltype(table)>>;
  std::string s;
  for (std::size_t i = 0; i < count; ++i)
    s += (i == 0 ? "" : i + 1 == count ? " or " : ", ") + std::string(table[i].name);
  return s;
}

}  // namespace lsgl
