#pragma once
// The format an output file's name asks for, shared by every command that writes a file: the
// extension chooses the format, and a name whose format the command cannot write is refused
// before any work is done (never an HDF5 file under a .npz name). All functions are local.
#include <string>
#include <vector>

#include "lsgl/util/names.hpp"

namespace lsgl {

enum class OutputFormat { kHdf5, kNpz, kMtx, kEdgeList, kText, kJson };
inline constexpr Named<OutputFormat> kOutputFormatNames[] = {
    {OutputFormat::kHdf5, "hdf5"}, {OutputFormat::kNpz, "npz"},
    {OutputFormat::kMtx, "mtx"},   {OutputFormat::kEdgeList, "edgelist"},
    {OutputFormat::kText, "text"}, {OutputFormat::kJson, "json"}};
constexpr const auto& names(OutputFormat) { return kOutputFormatNames; }

// The format named by `path`'s extension (.h5/.hdf5, .npz, .mtx, .txt/.edges/.edgelist/.tsv,
// .json), the first of `allowed` that the extension can mean (.txt: an edge list or text). Throws
// std::invalid_argument naming `option`, the file and the extensions `allowed` accepts when the
// extension names another format (.npy, .csv, .h5ad, ...) or none at all. A name ending in .gz
// asks for the format of the name without it, gzip-compressed (gzip_output): accepted for .mtx
// and edge lists, refused for the rest with the reason (.npz and .h5 compress by their own
// means).
OutputFormat output_format(const std::string& option, const std::string& path,
                           const std::vector<OutputFormat>& allowed);

// Whether `path` ends in .gz (any case): the output is gzip-compressed.
bool gzip_output(const std::string& path);

// The extensions of `allowed` as ".h5, .hdf5, .npz" (for messages and --help).
std::string output_extensions(const std::vector<OutputFormat>& allowed);

}  // namespace lsgl
