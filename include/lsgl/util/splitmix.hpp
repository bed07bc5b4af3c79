#pragma once
// splitmix64 (Steele, Lea, Flood 2014): a fixed, portable 64-bit hash/generator step, so that
// values drawn from it are the same with every compiler and standard library and on any rank.
#include <cstdint>

namespace lsgl {

// Local. One splitmix64 step: the output for state x (the state advanced by the golden ratio).
inline std::uint64_t splitmix64(std::uint64_t x) {
  std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace lsgl
