#pragma once
// Private to src/ann: the neighbour record shared by the ring and the recall check, and the
// tiny interface behind which each search engine (exact, FLANN, hnswlib) sits.
#include <cstdint>
#include <memory>
#include <vector>

#include "lsgl/ann/candidates.hpp"

namespace lsgl::ann {

// One neighbour: squared distance and global index, ordered by (dist, idx).
struct Neighbor {
  double dist;
  std::int64_t idx;
};
inline bool operator<(const Neighbor& a, const Neighbor& b) {
  return a.dist < b.dist || (a.dist == b.dist && a.idx < b.idx);
}

// An index over a block of rows (the caller keeps the rows alive while the engine exists).
class Engine {
 public:
  virtual ~Engine() = default;
  // For each of the nq queries (row-major, same d as the block), up to k (<= block rows) local
  // row numbers of near neighbours, in any order, -1 where fewer were found: out[q * k + j].
  virtual void search(const float* queries, std::int64_t nq, int k, std::int64_t* out) const = 0;
};

// Index the block of `rows` (> 0) x `d` floats at `base`; for hnsw, `m` is the number of
// neighbours that will be wanted (the search list is at least m + 1 long).
std::unique_ptr<Engine> make_exact_engine(const AnnParams& p, const float* base, std::int64_t rows,
                                          std::int64_t d);
std::unique_ptr<Engine> make_flann_engine(const AnnParams& p, const float* base, std::int64_t rows,
                                          std::int64_t d);
std::unique_ptr<Engine> make_hnsw_engine(const AnnParams& p, const float* base, std::int64_t rows,
                                         std::int64_t d, int m);

// Brute force: the k local rows nearest to q by (squared_distance, row), row `exclude` left out
// (-1: none); writes k row numbers to out, -1 past the rows available. `scratch` is reused.
void exact_knn(const float* q, const float* base, std::int64_t rows, std::int64_t d, int k,
               std::int64_t exclude, std::vector<Neighbor>& scratch, std::int64_t* out);

}  // namespace lsgl::ann
