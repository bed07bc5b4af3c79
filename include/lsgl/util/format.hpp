#pragma once
// printf-style formatting into a std::string (the lines a Monitor receives). Local.
#include <string>

namespace lsgl {

std::string strprintf(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace lsgl
