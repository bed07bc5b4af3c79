#pragma once
// Candidate neighbours read from a file instead of searched (`lsgl learn --candidates`): the
// lists users already have from pynndescent, faiss, hnswlib or scikit-learn. Two HDF5 layouts
// and scipy's:
//  - lists: two 2-D datasets of the same shape n x m, neighbour ids (any integer type, 0-based)
//           and distances (float), row i holding node i's neighbours in any order;
//  - csr:   a sparse distance matrix in lsgl's graph layout (/graph/indptr, /graph/indices,
//           /graph/data = distances), rows of any length;
//  - npz:   the same sparse distance matrix saved by scipy.sparse.save_npz in csr format (the
//           output of sklearn's kneighbors_graph(mode='distance'): --distance euclidean).
// Each row is cleaned as a user expects: -1 entries (padding of faiss and hnswlib) and the node
// itself (pynndescent lists it first) are dropped, a neighbour listed twice keeps its smallest
// distance; then every row keeps its m nearest, m = the fewest clean entries of any row (at most
// max_m). Pairs listed in one direction only are kept: the learner takes the union of the lists,
// as for searched candidates. Distances become squared Euclidean (Candidates' convention):
// "squared" as given, "euclidean" squared, "cosine" (1 - cos, as hnswlib and pynndescent give it)
// doubled, which is the squared distance of the unit-normalised rows.
// A file with lists for other than opt.n nodes, ids out of range (other than -1), negative or
// non-finite distances, shapes that differ and a row left with no neighbour raise
// CollectiveError on every rank naming the row.
#include <mpi.h>

#include <cstdint>
#include <string>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/io/dataset.hpp"
#include "lsgl/util/names.hpp"

namespace lsgl {

// What the file's distances are (see above).
enum class CandidateDistance { kSquared, kEuclidean, kCosine };
inline constexpr Named<CandidateDistance> kCandidateDistanceNames[] = {
    {CandidateDistance::kSquared, "squared"},
    {CandidateDistance::kEuclidean, "euclidean"},
    {CandidateDistance::kCosine, "cosine"}};
constexpr const auto& names(CandidateDistance) { return kCandidateDistanceNames; }

struct CandidatesFileOptions {
  std::string indices = "/indices";      // lists layout: the ids dataset
  std::string distances = "/distances";  // lists layout: the distances dataset
  CandidateDistance distance = CandidateDistance::kSquared;
  int max_m = 0;                         // keep at most this many per node (0: no limit)
  std::int64_t n = 0;                    // > 0: the file must hold lists for n nodes (the data's)
};

// What reading did; identical on every rank.
struct CandidatesFileReport {
  std::string layout;              // lists | csr | npz
  std::int64_t n = 0;
  std::int64_t entries = 0;        // entries in the file
  std::int64_t padding = 0;        // -1 entries dropped
  std::int64_t self = 0;           // self entries dropped
  std::int64_t duplicates = 0;     // repeated neighbours dropped
  std::int64_t beyond_m = 0;       // clean entries beyond the m nearest dropped
  int m = 0;                       // neighbours kept per node
  // One line saying what was dropped; empty when nothing was.
  std::string note() const;
};

// Collective. Reads `path` (npz for a ZIP archive, the csr layout when it has /graph/indptr,
// else the lists layout);
// rows in lsgl::Partition blocks, each sorted by (distance, id). `report` may be null.
Candidates read_candidates_file(MPI_Comm comm, const std::string& path,
                                const CandidatesFileOptions& opt, CandidatesFileReport* report);

// Collective. Compares up to `sample` candidate distances per rank (pairs whose both ends are
// local rows of `data`) with the squared distances of `data`, read back under each --distance
// choice. Throws CollectiveError when the declared choice matches fewer than half of the pairs
// and another matches at least 90% (naming it); returns a note when none matches, else "".
std::string check_candidate_distances(MPI_Comm comm, const LocalRows& data, const Candidates& cand,
                                      CandidateDistance distance, int sample = 2000);

}  // namespace lsgl
