// The projected search for high-dimensional data ("--ann projected"; "--ann auto" above
// kProjectFirstDims dimensions): a shortlist by a lower bound in a few dimensions, re-ranked by
// exact distances.
//
// 1. Projection (projection.hpp): the principal components of a hashed sample; every row becomes
//    its first p' component coordinates. The squared distance of two projected rows is a lower
//    bound of the rows' squared distance.
// 2. Cells: k-means cells of about kCellRows projected rows, the same on any number of ranks
//    (assign_global_cells), packed onto the ranks by locality with each row's full row.
// 3. Shortlist: a row's S nearest by (projected distance, global index) among the rows of its
//    `probes` nearest cells (PartitionSearch::probe); each neighbour's exact squared distance is
//    computed by the rank that holds it (PartitionSearch::refine). The same rows are compared on
//    any number of ranks, so the shortlists, and the lists, do not depend on the ranks.
// 4. Re-rank: the m nearest of the shortlist by (exact distance, global index).
// 5. Certificate: every row outside the shortlist lies at least min(the S-th projected distance,
//    the bound on the unprobed cells) away, up to the rounding slack of the projection; a row
//    whose m-th exact distance is below that has its exact m nearest. Rows at distance 0
//    (duplicates) project to the same bits, fall in the row's own (probed) cell and have a bound
//    of exactly 0, which the index order settles. With --ann-certify the rows that fail probe
//    kEscalation times more cells with a shortlist as much longer, pass after pass, until every
//    row is certified (at the latest when every cell is probed and every other row listed).
// p' is the fewest components (a multiple of 8) that explain kExplainedTarget of the sample's
// variance, unless set; the probes and S are the cheapest pair of the ladders kProbeLadder and
// kShortlistFactors * m whose recall on kChoiceSample sampled rows, against their exact lists,
// reaches kRecallTarget, unless S is set. Lists are searched in batches of rows so that the
// shortlists of a batch take at most kListBytes per rank.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/splitmix.hpp"
#include "partition_search.hpp"
#include "projection.hpp"
#include "routes.hpp"

namespace lsgl::ann {
namespace {

constexpr int kMaxDims = 128;               // principal components computed at most
constexpr double kExplainedTarget = 0.88;   // share of the variance p' explains
constexpr std::int64_t kCellRows = 256;     // rows per cell
constexpr std::int64_t kMaxCells = 16384;   // cells at most (one distance per centroid a query)
constexpr std::int64_t kChoiceSample = 256;  // sampled rows that choose the probes and S
constexpr double kRecallTarget = 0.997;     // their recall the choice must reach
constexpr int kProbeLadder[] = {4, 8, 12, 16, 24, 32, 48, 64};
constexpr int kShortlistFactors[] = {2, 3, 4, 6, 8, 12, 16};
// The cost of an exact distance per dimension, against a projected one: the full rows are read
// from memory, the projected ones stream through the cache (measured on Fashion-MNIST).
constexpr double kExactWeight = 2.0;
constexpr std::int64_t kListBytes = std::int64_t{64} << 20;  // shortlists of a batch, per rank
constexpr int kEscalation = 4;              // certification: probes and S grow so much per pass
constexpr std::uint64_t kChoiceSalt = 0x70726f6a65637465ULL;  // the choice sample's seed

// Local. The dimensions kept: the fewest multiple of 8 components (at most the computed ones)
// that explain kExplainedTarget of the variance.
int choose_dims(const Projection& proj) {
  for (int p = 8; p < proj.dims; p += 8) {
    if (proj.explained(p) >= kExplainedTarget) return p;
  }
  return proj.dims;
}

// Collective. For each sampled row s, each of its exact neighbours j (q.exact, m per row) and
// each probe count li of the ladder: the number of rows of the probed cells, s itself left out,
// that come before the neighbour by (projected distance, global index), all rows of those cells
// for a padding entry (-1), summed over the ranks: out[(s * m + j) * ladder + li]; negative when
// the neighbour's cell is not probed (every rank writes -1 there). The neighbour is in the
// shortlist of length S at that probe count iff the count is in [0, S); integers summed in any
// order, so the choice is the same on any number of ranks.
std::vector<std::int64_t> rows_ahead(MPI_Comm comm, const ProjectedPlan& plan,
                                     const ChoiceSample& q, const std::vector<int>& ladder, int m,
                                     int threads) {
  const CellLayout& lay = plan.cells.layout;
  const std::int64_t w = plan.dims, nq = static_cast<std::int64_t>(q.ids.size());
  const std::int64_t rows = plan.rows.local_rows(), nl = static_cast<std::int64_t>(ladder.size());
  const std::int64_t lo = plan.rows.begin;
  // Each neighbour's projected distance to its sampled row and its cell, from the rank holding it.
  std::vector<double> dist(static_cast<std::size_t>(nq * m),
                           -std::numeric_limits<double>::infinity());
  std::vector<std::int64_t> cell_of(static_cast<std::size_t>(nq * m), -1);
  for (std::int64_t s = 0; s < nq; ++s) {
    for (int j = 0; j < m; ++j) {
      const std::int64_t e = q.exact[s * m + j].idx;
      if (e < lo || e >= lo + rows) continue;
      dist[s * m + j] = projected_distance(q.projected.data() + s * w, plan.rows.row(e - lo), w);
      cell_of[s * m + j] = plan.cells.home[e - lo];
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, dist.data(), static_cast<int>(dist.size()), MPI_DOUBLE, MPI_MAX,
                comm);
  MPI_Allreduce(MPI_IN_PLACE, cell_of.data(), static_cast<int>(cell_of.size()), MPI_INT64_T,
                MPI_MAX, comm);
  std::vector<std::int64_t> out(static_cast<std::size_t>(nq * m * nl), 0);
#pragma omp parallel num_threads(threads)
  {
    std::vector<std::pair<double, int>> cd(static_cast<std::size_t>(lay.cells));
    std::vector<int> place(static_cast<std::size_t>(lay.cells));
    std::vector<std::int64_t> first(static_cast<std::size_t>(lay.cells));  // place -> ladder
    std::vector<std::pair<Neighbor, int>> ahead;  // (neighbour, j) of the real neighbours, sorted
    std::vector<std::int64_t> diff;               // (li, position in ahead + 1) counts
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t s = 0; s < nq; ++s) {
      const float* x = q.projected.data() + s * w;
      for (int c = 0; c < lay.cells; ++c) {
        cd[c] = {squared_distance(x, lay.centroids.data() + c * w, w), c};
      }
      std::sort(cd.begin(), cd.end());
      for (int t = 0; t < lay.cells; ++t) place[cd[t].second] = t;
      for (int t = 0, li = 0; t < lay.cells; ++t) {
        while (t >= ladder[li]) ++li;  // the first probe count whose cells include place t
        first[t] = li;
      }
      ahead.clear();
      for (int j = 0; j < m; ++j) {
        const std::int64_t e = q.exact[s * m + j].idx;
        if (e >= 0) ahead.push_back({{dist[s * m + j], e}, j});
      }
      std::sort(ahead.begin(), ahead.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      const std::int64_t na = static_cast<std::int64_t>(ahead.size());
      // diff[li * (na + 1) + p]: rows first probed at li with exactly p neighbours at or before
      // them (the rows come before the neighbours at positions p and after).
      diff.assign(static_cast<std::size_t>(nl * (na + 1)), 0);
      for (std::int64_t l = 0; l < rows; ++l) {
        if (lo + l == q.ids[s]) continue;
        const Neighbor key{projected_distance(x, plan.rows.row(l), w), lo + l};
        const auto at = std::upper_bound(
            ahead.begin(), ahead.end(), key,
            [](const Neighbor& k, const std::pair<Neighbor, int>& a) { return k < a.first; });
        ++diff[first[place[plan.cells.home[l]]] * (na + 1) + (at - ahead.begin())];
      }
      std::int64_t* o = out.data() + s * m * nl;
      for (std::int64_t li = 0; li < nl; ++li) {
        std::int64_t before = 0, all = 0;  // rows probed at li ahead of position p; all of them
        for (std::int64_t li2 = 0; li2 <= li; ++li2) {
          for (std::int64_t pp = 0; pp <= na; ++pp) all += diff[li2 * (na + 1) + pp];
        }
        for (std::int64_t p = 0; p < na; ++p) {
          for (std::int64_t li2 = 0; li2 <= li; ++li2) before += diff[li2 * (na + 1) + p];
          o[ahead[p].second * nl + li] = before;
        }
        for (int j = 0; j < m; ++j) {
          if (q.exact[s * m + j].idx < 0) {
            o[j * nl + li] = all;
          } else if (place[cell_of[s * m + j]] >= ladder[li]) {
            o[j * nl + li] = -1;  // the neighbour's cell is not probed
          }
        }
      }
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, out.data(), static_cast<int>(out.size()), MPI_INT64_T, MPI_SUM, comm);
  return out;
}

}  // namespace

std::vector<std::int64_t> shortlist_hits(MPI_Comm comm, const ProjectedPlan& plan,
                                         const ChoiceSample& q, const std::vector<int>& ladder,
                                         const std::vector<int>& lengths, int m, int threads) {
  const std::int64_t nq = static_cast<std::int64_t>(q.ids.size());
  const std::int64_t nl = static_cast<std::int64_t>(ladder.size());
  const std::int64_t nt = static_cast<std::int64_t>(lengths.size());
  const std::vector<std::int64_t> ahead = rows_ahead(comm, plan, q, ladder, m, threads);
  std::vector<std::int64_t> hits(static_cast<std::size_t>(nl * nt), 0);
  for (std::int64_t e = 0; e < nq * m; ++e) {
    for (std::int64_t li = 0; li < nl; ++li) {
      const std::int64_t before = ahead[e * nl + li];
      for (std::int64_t t = 0; t < nt; ++t) hits[li * nt + t] += before >= 0 && before < lengths[t];
    }
  }
  return hits;
}

namespace {

// Collective. The probes and S of plan: for each pair of the ladders, the recall of the
// shortlists of a hashed sample of rows against their exact lists (shortlist_hits); the cheapest
// pair that reaches kRecallTarget, by rows compared times p' plus kExactWeight S d; the widest
// pair when none does. p.shortlist, when set, fixes S.
void choose_probes(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p,
                   ProjectedPlan& plan) {
  SplitMix64 rng(p.seed ^ kChoiceSalt);
  ChoiceSample q;
  const std::vector<float> rows =
      gather_rows(comm, data, sample_distinct(data.n, kChoiceSample, rng), q.ids);
  q.exact = exact_neighbours(comm, data, q.ids, rows, m, p.threads);
  const std::int64_t nq = static_cast<std::int64_t>(q.ids.size());
  q.projected.resize(static_cast<std::size_t>(nq * plan.dims));
  std::vector<double> unused(static_cast<std::size_t>(nq));
  project_rows(plan.projection, plan.dims, rows.data(), nq, q.projected.data(), unused.data());

  const CellLayout& lay = plan.cells.layout;
  std::vector<int> ladder;
  for (int probes : kProbeLadder) {
    if (probes < lay.cells) ladder.push_back(probes);
  }
  ladder.push_back(lay.cells);
  std::vector<int> lengths;
  for (int f : kShortlistFactors) {
    lengths.push_back(static_cast<int>(std::min<std::int64_t>(std::int64_t{f} * m, data.n - 1)));
  }
  if (p.shortlist > 0) lengths = {plan.shortlist};
  const int longest = *std::max_element(lengths.begin(), lengths.end());
  const std::vector<std::int64_t> hits =
      shortlist_hits(comm, plan, q, ladder, lengths, m, p.threads);

  // Rows compared per query for each probe count: the sizes of its probed cells.
  const std::int64_t nl = static_cast<std::int64_t>(ladder.size());
  const std::int64_t nt = static_cast<std::int64_t>(lengths.size());
  std::vector<double> compared(static_cast<std::size_t>(nl), 0.0);
  std::vector<std::pair<double, int>> cd(static_cast<std::size_t>(lay.cells));
  for (std::int64_t s = 0; s < nq; ++s) {
    for (int c = 0; c < lay.cells; ++c) {
      cd[c] = {squared_distance(q.projected.data() + s * plan.dims,
                                lay.centroids.data() + c * plan.dims, plan.dims), c};
    }
    std::sort(cd.begin(), cd.end());
    double sum = 0;
    for (int t = 0, li = 0; t < lay.cells && li < nl; ++t) {
      sum += static_cast<double>(lay.size[cd[t].second]);
      if (t + 1 == ladder[li]) compared[li++] += sum / static_cast<double>(nq);
    }
  }
  double best = std::numeric_limits<double>::infinity();
  for (std::int64_t li = 0; li < nl; ++li) {
    for (std::int64_t t = 0; t < nt; ++t) {
      const int len = lengths[t];
      const double recall = static_cast<double>(hits[li * nt + t]) / static_cast<double>(nq * m);
      const double cost = compared[li] * plan.dims +
                          kExactWeight * len * static_cast<double>(data.d);
      const bool widest = li == nl - 1 && len == longest;
      if ((recall >= kRecallTarget && cost < best) || (widest && !std::isfinite(best))) {
        if (recall >= kRecallTarget) best = cost;
        plan.probes = ladder[li];
        plan.shortlist = len;
        plan.sample_recall = recall;
        plan.reached = recall >= kRecallTarget;
      }
    }
  }
}

// Local. The m nearest of a shortlist `list` of length k (ascending by (bound, index), with exact
// distances `exact`) by (exact distance, index) into `out`; returns whether the certificate
// holds (see the head of this file): `outside` bounds the distance to the unprobed cells' rows,
// `slack` is the row's rounding slack plus the largest slack of any row.
bool rerank(const Neighbor* list, const double* exact, int k, int m, std::int64_t n, int dims,
            double outside, double slack, std::vector<Neighbor>& scratch, Neighbor* out) {
  scratch.clear();
  for (int j = 0; j < k; ++j) {
    if (list[j].idx >= 0) scratch.push_back({exact[j], list[j].idx});
  }
  const std::size_t kept = std::min(scratch.size(), static_cast<std::size_t>(m));
  std::partial_sort(scratch.begin(), scratch.begin() + kept, scratch.end());
  for (int j = 0; j < m; ++j) {
    out[j] = static_cast<std::size_t>(j) < kept ? scratch[j] : kNoNeighbor;
  }
  const bool complete = static_cast<int>(scratch.size()) < k;  // every probed row is listed
  const Neighbor last = list[k - 1], mth = out[m - 1];
  if (std::isinf(outside) && static_cast<std::int64_t>(scratch.size()) == n - 1) return true;
  if (!(mth.dist < std::numeric_limits<double>::infinity())) return false;
  if (mth.dist == 0 && (complete || last.dist > 0 || mth.idx < last.idx)) return true;
  const double listed = complete ? std::numeric_limits<double>::infinity()
                                  : std::sqrt(projected_lower(last.dist, dims));
  return std::sqrt(mth.dist) < std::min(listed, outside) - slack;
}

// The shortlist search over the held rows, batch after batch, and the certification passes.
class Shortlists {
 public:
  Shortlists(MPI_Comm comm, PartitionSearch& search, const ProjectedPlan& plan, int m)
      : comm_(comm), search_(search), plan_(plan), m_(m) {
    double most = 0;
    for (double s : plan.slack) most = std::max(most, s);
    slack_max_ = allreduce_max_double(comm, most);
    lists_.assign(static_cast<std::size_t>(search.held() * m), kNoNeighbor);
  }

  // Collective. Shortlists of length k from `probes` cells for the held rows `rows`, re-ranked
  // into the lists; returns the rows whose certificate fails.
  std::vector<std::int64_t> pass(const std::vector<std::int64_t>& rows, int k, int probes,
                                 SearchProgress& progress) {
    const std::int64_t per_batch = std::max<std::int64_t>(
        1, kListBytes / (k * static_cast<std::int64_t>(sizeof(Neighbor) + sizeof(double))));
    const std::int64_t count = static_cast<std::int64_t>(rows.size());
    const std::int64_t batches = allreduce_max(comm_, (count + per_batch - 1) / per_batch);
    std::vector<std::int64_t> failing, batch;
    for (std::int64_t b = 0; b < batches; ++b) {
      const std::int64_t lo = std::min(count, b * per_batch), hi = std::min(count, lo + per_batch);
      batch.assign(rows.begin() + lo, rows.begin() + hi);
      search_.probe(batch, k, probes, lists_k_, exact_, outside_, &progress);
      for (std::size_t i = 0; i < batch.size(); ++i) {
        const std::int64_t at = batch[i];
        const double slack =
            row_slack(plan_.projection, plan_.dims, search_.full_row(at)) + slack_max_;
        if (!rerank(lists_k_.data() + i * k, exact_.data() + i * k, k, m_, plan_.rows.n,
                    plan_.dims, outside_[i], slack, scratch_, lists_.data() + at * m_)) {
          failing.push_back(at);
        }
      }
    }
    return failing;
  }

  std::vector<Neighbor>& lists() { return lists_; }

 private:
  MPI_Comm comm_;
  PartitionSearch& search_;
  const ProjectedPlan& plan_;
  int m_;
  double slack_max_ = 0;
  std::vector<Neighbor> lists_;    // held rows x m, by exact distance
  std::vector<Neighbor> lists_k_;  // a batch's shortlists (kept: their pages are reused)
  std::vector<double> exact_, outside_;
  std::vector<Neighbor> scratch_;
};

}  // namespace

ProjectedPlan plan_projected(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p) {
  const double t0 = MPI_Wtime();
  ProjectedPlan plan;
  const int computed = p.project_dims > 0
                           ? p.project_dims
                           : static_cast<int>(std::min<std::int64_t>(kMaxDims, data.d));
  stage_line(*p.monitor, "principal components of a sample of the rows");
  plan.projection = fit_projection(comm, data, computed, p.seed);
  plan.dims = p.project_dims > 0 ? p.project_dims : choose_dims(plan.projection);
  plan.explained = plan.projection.explained(plan.dims);
  stage_line(*p.monitor, "projection of the rows");
  const std::int64_t rows = data.local_rows(), w = plan.dims;
  plan.rows.n = data.n;
  plan.rows.d = w;
  plan.rows.begin = data.begin;
  std::vector<float>& projected_values = plan.rows.values();
  projected_values.resize(static_cast<std::size_t>(rows * w));
  float* projected = projected_values.data();
  plan.slack.resize(static_cast<std::size_t>(rows));
#pragma omp parallel for num_threads(p.threads) schedule(static)
  for (std::int64_t b = 0; b < rows; b += 1024) {
    const std::int64_t nb = std::min<std::int64_t>(1024, rows - b);
    project_rows(plan.projection, plan.dims, data.row(b), nb, projected + b * w,
                 plan.slack.data() + b);
  }
  stage_line(*p.monitor, "k-means cells of the projected rows");
  const std::int64_t cells = std::clamp<std::int64_t>(data.n / kCellRows, 1, kMaxCells);
  plan.cells = assign_global_cells(comm, plan.rows, cells, p);
  if (p.shortlist > 0) {
    plan.shortlist = static_cast<int>(std::min<std::int64_t>(p.shortlist, data.n - 1));
  }
  stage_line(*p.monitor, "probed cells and shortlist length from sampled rows");
  choose_probes(comm, data, m, p, plan);
  if (p.shortlist > 0) plan.reached = true;
  plan.seconds = MPI_Wtime() - t0;
  return plan;
}

void report_plan(const ProjectedPlan& plan, SearchReport& report) {
  report.projected_dims = plan.dims;
  report.probes = plan.probes;
  report.shortlist = plan.shortlist;
  report.explained_variance = plan.explained;
  report.shortlist_recall = plan.sample_recall;
  report.seconds_projection = plan.seconds;
}

Candidates projected_candidates(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p,
                                ProjectedPlan plan) {
  SearchReport report;
  const int cells = plan.cells.layout.cells;
  PartitionSearch search(comm, plan.rows, &data, std::move(plan.cells), p, report);
  const double t0 = MPI_Wtime();
  std::vector<std::int64_t> rows(static_cast<std::size_t>(search.held()));
  for (std::int64_t i = 0; i < search.held(); ++i) rows[i] = i;
  SearchProgress progress(comm_rank(comm) == 0 ? *p.monitor : null_monitor(), search.held());
  Shortlists shortlists(comm, search, plan, m);
  std::vector<std::int64_t> failing = shortlists.pass(rows, plan.shortlist, plan.probes, progress);
  std::int64_t uncertified = allreduce_sum(comm, static_cast<std::int64_t>(failing.size()));
  int k = plan.shortlist, probes = plan.probes;
  while (p.certify && uncertified > 0) {
    k = static_cast<int>(std::min<std::int64_t>(std::int64_t{k} * kEscalation, data.n - 1));
    probes = std::min(probes * kEscalation, cells);
    ++report.certify_passes;
    const std::string line = std::to_string(uncertified) + " rows not certified: " +
                             std::to_string(probes) + " cells probed, shortlists of " +
                             std::to_string(k);
    stage_line(*p.monitor, line.c_str());
    progress.own.extend(static_cast<std::int64_t>(failing.size()));
    failing = shortlists.pass(failing, k, probes, progress);
    uncertified = allreduce_sum(comm, static_cast<std::int64_t>(failing.size()));
  }
  report.certified_rows = data.n - uncertified;
  Candidates c = search.finish(std::move(shortlists.lists()), m);
  report.seconds_search = MPI_Wtime() - t0;
  report.engine = AnnEngine::kProjected;
  report_plan(plan, report);
  c.report = report;
  return c;
}

}  // namespace lsgl::ann
