#pragma once
// Candidate neighbours: each node's m nearest (approximate) neighbours among all n nodes, self
// excluded, squared Euclidean distances, ties broken by global index (so exact search gives the
// same lists on any number of ranks). For high-dimensional data the projected search shortlists
// S rows per node by a lower bound in a few principal components and keeps the m nearest of
// them by exact distance (certified exact where the bound shows it). Two routes bring queries to
// indexes:
// - partition (default): the rows are regrouped into k-means cells packed onto ranks by
//   locality; a query searches its own rank's index and only the ranks whose cells can still
//   hold one of its m nearest (a lower bound on the distance to each cell certifies the rest);
// - ring: every rank indexes its input block and every query visits all P indexes.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lsgl/io/dataset.hpp"
#include "lsgl/util/monitor.hpp"
#include "lsgl/util/names.hpp"

namespace lsgl {

// hnsw, flann (randomised kd-trees), voronoi (exact, k-means cells within each rank), exact
// (brute force), projected (a shortlist by principal components re-ranked by exact distances)
// or auto (above 100 dimensions projected where its sample recall reaches the target; else
// voronoi where a sample of queries shows that its cells prune the search, hnsw otherwise; the
// same choice on every rank).
enum class AnnEngine { kAuto, kHnsw, kFlann, kVoronoi, kExact, kProjected };
inline constexpr Named<AnnEngine> kAnnEngineNames[] = {{AnnEngine::kAuto, "auto"},
                                                       {AnnEngine::kHnsw, "hnsw"},
                                                       {AnnEngine::kFlann, "flann"},
                                                       {AnnEngine::kVoronoi, "voronoi"},
                                                       {AnnEngine::kExact, "exact"},
                                                       {AnnEngine::kProjected, "projected"}};
constexpr const auto& names(AnnEngine) { return kAnnEngineNames; }

enum class AnnRoute { kPartition, kRing };
inline constexpr Named<AnnRoute> kAnnRouteNames[] = {{AnnRoute::kPartition, "partition"},
                                                     {AnnRoute::kRing, "ring"}};
constexpr const auto& names(AnnRoute) { return kAnnRouteNames; }

// Where candidate lists came from: a search, a file (lsgl learn --candidates) or a checkpoint.
enum class CandidateSource { kSearch, kFile, kCheckpoint };
inline constexpr Named<CandidateSource> kCandidateSourceNames[] = {
    {CandidateSource::kSearch, "search"},
    {CandidateSource::kFile, "file"},
    {CandidateSource::kCheckpoint, "checkpoint"}};
constexpr const auto& names(CandidateSource) { return kCandidateSourceNames; }

struct AnnParams {
  AnnEngine engine = AnnEngine::kAuto;
  AnnRoute route = AnnRoute::kPartition;
  // projected: principal components kept (0: the fewest multiple of 8 that explain 88% of the
  // variance), rows shortlisted per node (0: chosen by the recall of sampled rows), and whether
  // every list must be certified exact (rows that are not probe more cells with longer
  // shortlists); with auto, certify keeps the search exact (projected, certified, or voronoi)
  int project_dims = 0;
  int shortlist = 0;
  bool certify = false;
  int cells_per_rank = 16;          // partition: k-means cells per rank
  int threads = 1;                  // threads per rank for index build and search
  Monitor* monitor = &null_monitor();  // rank 0's progress and the warnings (never null)
  // partition: bytes of routed query rows and their lists a rank sends per round, all peers
  // together (bounds the query buffers whatever the number of ranks)
  std::int64_t round_bytes = std::int64_t{16} << 20;
  // voronoi: rows per k-means cell within a rank's index
  std::int64_t cell_rows = 2048;
  // auto: hnsw when the voronoi engine would compare more rows than this per query (measured on
  // a sample; break-even near 27,000 on the benchmark sets, src/ann/engine_choice.cpp)
  double auto_rows_per_query = 20000;
  // FLANN kd-tree
  int flann_trees = 4;
  int flann_checks = 256;
  // hnswlib
  int hnsw_m = 16;
  int hnsw_ef_construction = 100;
  int hnsw_ef = 40;  // raised to at least m at query time
  std::uint64_t seed = 1;
  // Optional. Called on every rank by the partition route on two or more ranks, with the engine
  // chosen, once the search reads the values of its `data` no more (the indexes hold the rows
  // regrouped), before the queries' lists are allocated: the caller may free them then (at 10^7
  // rows of 68 floats on 2 ranks, a rank's 1.36 GB input block off the search's peak). The
  // search still reads data.begin, n and d.
  std::function<void(AnnEngine)> rows_done;
  // One line describing engine and settings, stored in output files.
  std::string describe() const;
};

// Local. Whether the engine's lists are exact by construction (voronoi, exact); projected lists
// are exact only where certified (SearchReport::exact).
inline bool exact_engine(AnnEngine engine) {
  return engine == AnnEngine::kVoronoi || engine == AnnEngine::kExact;
}

// What the search did, the same on every rank.
struct SearchReport {
  CandidateSource source = CandidateSource::kSearch;  // route and engine tell a search only
  AnnRoute route = AnnRoute::kPartition;
  AnnEngine engine = AnnEngine::kAuto;  // the engine used (auto resolved)
  // "auto": rows the voronoi engine compared per sampled query, and the limit above which
  // hnsw was chosen (-1: no choice made)
  double auto_rows_per_query = -1, auto_rows_limit = -1;
  int cells = 0;                       // partition: k-means cells over all ranks
  std::int64_t visits[3] = {0, 0, 0};  // queries that searched 1, 2, 3 or more ranks' indexes
  std::int64_t rows_min = 0, rows_max = 0;  // fewest and most rows indexed by one rank
  std::int64_t bytes_sent_max = 0;     // most bytes one rank sent (rows, queries, lists)
  std::int64_t bytes_sent_total = 0;
  double seconds_cells = 0, seconds_index = 0, seconds_search = 0;  // rank 0's phases
  double cpu_seconds = 0;              // CPU time of the search summed over ranks and threads
  // The route and engine as the output names them ("file" or "checkpoint" for both when the
  // lists were not searched).
  std::string route_name() const;
  std::string engine_name() const;
  // Local. Whether a search of n rows returned exact lists by construction: voronoi, exact, or
  // projected with every list certified (--candidates and checkpoints: unknown, false).
  bool exact(std::int64_t n) const;
  // projected: components kept, shortlist length, explained variance, the shortlist's recall on
  // the choice sample, rows whose lists are certified exact, certification passes
  // beyond the first, and the time of the projection and the choice (slowest rank)
  int projected_dims = 0;
  int probes = 0;                      // projected: cells probed per row
  int shortlist = 0;
  double explained_variance = -1;
  double shortlist_recall = -1;
  std::int64_t certified_rows = -1;
  int certify_passes = 0;
  double seconds_projection = 0;
};

// m neighbours for each local row, sorted ascending by (dist, global index).
struct Candidates {
  std::int64_t begin = 0;          // global index of the first local row
  int m = 0;                       // neighbours per row
  std::vector<std::int64_t> idx;   // local_rows * m global indices
  std::vector<double> dist;        // local_rows * m squared distances
  SearchReport report;
  std::int64_t local_rows() const { return m > 0 ? static_cast<std::int64_t>(idx.size()) / m : 0; }
};

// Squared Euclidean distance accumulated in double in a fixed order: the same value for (a, b)
// and (b, a) on any rank. Every distance stored in Candidates comes from this function.
double squared_distance(const float* a, const float* b, std::int64_t d);

// Collective. m candidate neighbours for every local row of `data` (requires m < n).
// Reproducibility: "exact" and "voronoi" give the same lists on any number of ranks and either
// route; "hnsw" with threads == 1 repeats for a fixed number of ranks; "hnsw" with threads > 1
// (concurrent insertion) and "flann" (FLANN 1.9.2 shuffles with std::random_device while
// building) may differ slightly between runs. "auto" makes the same choice in every run with the
// same input, seed and number of ranks (report.engine names it), and then behaves as that engine.
Candidates find_candidates(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p);

// Collective. Recall of `cand` estimated on `sample` nodes drawn with `seed` (the same on every
// rank): mean over sampled nodes of |cand ∩ exact m-NN| / m, the exact lists by brute force.
// Returns -1 when sample == 0 (not measured). A candidate tying the exact m-th distance counts
// as a hit. `threads`: OpenBLAS and OpenMP threads for the brute force.
double estimate_recall(MPI_Comm comm, const LocalRows& data, const Candidates& cand, int sample,
                       std::uint64_t seed, int threads = 1);

}  // namespace lsgl
