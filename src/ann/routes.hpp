#pragma once
// Private to src/ann: the two ways the queries meet the indexes (see candidates.hpp).
#include <mpi.h>

#include <vector>

#include "cells.hpp"
#include "engines.hpp"
#include "lsgl/ann/candidates.hpp"
#include "projection.hpp"

namespace lsgl::ann {

// Collective. Every rank indexes its input block; query blocks travel around a ring of ranks.
Candidates ring_candidates(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p);

// Collective. Rows regrouped into k-means cells; each query searches its home rank's index and
// the ranks whose cells can still hold one of its m nearest (partition_search.hpp, cells.hpp).
Candidates partition_candidates(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p);

// The projection of the projected search and the shortlist length (projected.cpp).
struct ProjectedPlan {
  Projection projection;
  int dims = 0;                 // p': components kept
  CellAssignment cells;         // cells of the projected rows (the same on any number of ranks)
  int probes = 0;               // cells probed per row
  int shortlist = 0;            // S: rows re-ranked per row
  double explained = 0;         // share of the sample's variance the p' components explain
  double sample_recall = -1;    // the shortlist's recall on the choice sample
  bool reached = false;         // S was given, or sample_recall reached the target
  LocalRows rows;               // the local rows projected on the p' components
  std::vector<double> slack;    // their rounding slack
  double seconds = 0;
};

// Above this many dimensions "--ann auto" tries the projected search first: there the k-means
// cells of the full space prune little (Fashion-MNIST, 784 dimensions: the voronoi engine
// compared 39,000 of 60,000 rows per query).
inline constexpr std::int64_t kProjectFirstDims = 100;

// The sampled rows that choose the probes and S, with their exact lists, on every rank.
struct ChoiceSample {
  std::vector<std::int64_t> ids;  // global indices
  std::vector<float> projected;   // ids.size() x p': the rows projected as plan.rows
  std::vector<Neighbor> exact;    // ids.size() x m: exact m nearest by (distance, index)
};

// Collective. hits[li * lengths.size() + t]: how many of the sampled rows' exact neighbours are
// in their shortlists of length lengths[t] over their ladder[li] nearest cells (the S nearest by
// (projected distance, global index), the row itself left out; a padding entry, idx -1, counts
// when the shortlist is not full). Integer counts summed over the ranks: the same on any number
// of ranks. `ladder` ascending.
std::vector<std::int64_t> shortlist_hits(MPI_Comm comm, const ProjectedPlan& plan,
                                         const ChoiceSample& q, const std::vector<int>& ladder,
                                         const std::vector<int>& lengths, int m, int threads);

// Collective. p' (p.project_dims, or from the explained variance), the projected rows, their
// cells, and the probes and S (S may be set by p.shortlist) from the recall of a sample of rows
// against brute force.
ProjectedPlan plan_projected(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p);

// Local. The plan's choices (p', probes, S, explained variance, sample recall, seconds) into
// `report`: the projected search's, or auto's when it did not keep the projection.
void report_plan(const ProjectedPlan& plan, SearchReport& report);

// Collective. m candidates per row by the shortlist of `plan` re-ranked by exact distances,
// certified rows counted (all of them with p.certify).
Candidates projected_candidates(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p,
                                ProjectedPlan plan);

}  // namespace lsgl::ann
