#pragma once
// The program's version and the commit it was built from, recorded in every output file. Local.
// Only src/util/version.cpp sees the build's commit, so a new commit recompiles one file.
namespace lsgl {

const char* version();     // "0.1.0"
const char* git_commit();  // short hash of the build's commit, or "unknown" outside git

}  // namespace lsgl
