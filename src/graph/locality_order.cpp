#include "lsgl/graph/locality_order.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>

#include "lsgl/util/dense.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/splitmix.hpp"

namespace lsgl {

namespace {

constexpr int kKeyDims = 8;   // principal directions of the key, at most
constexpr int kKeyBits = 63;  // bits of the key, all coordinates together

// Rows sampled for the principal directions: index i is in when its hash falls below the
// cut-off that keeps about `target` of the n rows.
bool sampled(std::int64_t i, std::int64_t n, std::int64_t target) {
  if (target >= n) return true;
  const double frac = static_cast<double>(target) / static_cast<double>(n);
  return static_cast<double>(splitmix64(static_cast<std::uint64_t>(i)) >> 11) <
         frac * 9007199254740992.0;  // 2^53
}

struct Record {
  std::uint64_t key;
  std::int64_t input;  // input index of the row
  bool operator<(const Record& o) const { return key != o.key ? key < o.key : input < o.input; }
};

// Data-only test of whether the locality order helps (the input may already be in a good
// order, e.g. a grid in grid order): over the sampled rows (the same on every rank), the
// fraction whose nearest sampled row falls in the same one of kBlocks equal blocks, with
// positions from the input index and from the rank of the key among the sample's keys.
constexpr int kBlocks = kOrderScoreBlocks;
constexpr double kBetter = 1.25;  // the locality order is used when this much better

template <class Project, class Key>
OrderScore compare_on_sample(const std::vector<float>& sample,
                             const std::vector<std::int64_t>& ids, std::int64_t n, std::int64_t d,
                             Project project, Key key_of) {
  const std::int64_t s = static_cast<std::int64_t>(ids.size());
  OrderScore score;
  if (s < 2) return score;
  std::vector<Record> rec(s);
  for (std::int64_t i = 0; i < s; ++i) {
    double x[kKeyDims];
    project(&sample[i * d], x);
    rec[i] = {key_of(x), ids[i]};
  }
  std::vector<std::int64_t> by_key(s);
  std::iota(by_key.begin(), by_key.end(), 0);
  std::sort(by_key.begin(), by_key.end(),
            [&](std::int64_t a, std::int64_t b) { return rec[a] < rec[b]; });
  std::vector<std::int64_t> key_rank(s);
  for (std::int64_t t = 0; t < s; ++t) key_rank[by_key[t]] = t;
  // Nearest neighbours among the first rows of the sample (brute force, about 3e8 operations).
  const std::int64_t used = std::min<std::int64_t>(
      s, static_cast<std::int64_t>(std::sqrt(3e8 / static_cast<double>(d))));
  std::int64_t same[2] = {0, 0};
  for (std::int64_t i = 0; i < used; ++i) {
    double best = std::numeric_limits<double>::infinity();
    std::int64_t nn = -1;
    for (std::int64_t j = 0; j < used; ++j) {
      if (j == i) continue;
      const double z = squared_distance(&sample[i * d], &sample[j * d], d);
      if (z < best) best = z, nn = j;
    }
    same[0] += ids[i] * kBlocks / n == ids[nn] * kBlocks / n;
    same[1] += key_rank[i] * kBlocks / s == key_rank[nn] * kBlocks / s;
  }
  score.input = static_cast<double>(same[0]) / static_cast<double>(used);
  score.locality = static_cast<double>(same[1]) / static_cast<double>(used);
  return score;
}

// The principal directions of a hashed sample of the rows, the same on every rank: the sample
// (rows and global indices), its mean and its top min(kKeyDims, d) eigenvectors (d x dims).
struct Principal {
  std::vector<float> sample;
  std::vector<std::int64_t> ids;
  std::vector<double> mean;
  Mat V;
  int dims = 0;
};

// Collective. Principal of about 2^20 sampled values.
Principal principal_directions(MPI_Comm comm, const LocalRows& data) {
  const std::int64_t n = data.n, d = data.d, local = data.local_rows();
  const std::int64_t target = std::clamp<std::int64_t>((std::int64_t(1) << 20) / d, 64, 2048);
  std::vector<float> mine;
  std::vector<std::int64_t> mine_ids;
  for (std::int64_t r = 0; r < local; ++r)
    if (sampled(data.begin + r, n, target)) {
      mine.insert(mine.end(), data.row(r), data.row(r) + d);
      mine_ids.push_back(data.begin + r);
    }
  Principal pc;
  pc.sample = allgather_items(comm, mine);
  pc.ids = allgather_items(comm, mine_ids);
  const std::vector<float>& sample = pc.sample;
  const std::int64_t s = static_cast<std::int64_t>(pc.ids.size());
  std::vector<double>& mean = pc.mean;
  mean.assign(d, 0.0);
  for (std::int64_t i = 0; i < s; ++i)
    for (std::int64_t t = 0; t < d; ++t) mean[t] += sample[i * d + t];
  for (auto& m : mean) m /= static_cast<double>(std::max<std::int64_t>(s, 1));
  Mat cov(d, d);
  std::vector<double> c(d);
  for (std::int64_t i = 0; i < s; ++i) {
    for (std::int64_t t = 0; t < d; ++t) c[t] = sample[i * d + t] - mean[t];
    for (std::int64_t a = 0; a < d; ++a)
      for (std::int64_t b = a; b < d; ++b) cov(a, b) += c[a] * c[b];
  }
  for (std::int64_t a = 0; a < d; ++a)
    for (std::int64_t b = 0; b < a; ++b) cov(a, b) = cov(b, a);
  pc.dims = static_cast<int>(std::min<std::int64_t>(kKeyDims, d));
  pc.V = top_eigenvectors(cov, pc.dims);
  return pc;
}

// Collective. Sample sort of the (key, input index) records: splitters from evenly spaced local
// keys; returns this rank's share, sorted (ranks in order).
std::vector<Record> sample_sort(MPI_Comm comm, std::vector<Record> rec) {
  const int size = comm_size(comm);
  const std::int64_t local = static_cast<std::int64_t>(rec.size());
  std::sort(rec.begin(), rec.end());
  const int per_rank = 4 * size;
  std::vector<Record> picks;
  for (int t = 1; t <= per_rank && local > 0; ++t)
    picks.push_back(rec[std::min<std::int64_t>(local - 1, t * local / (per_rank + 1))]);
  std::vector<Record> all_picks = allgather_items(comm, picks);
  std::sort(all_picks.begin(), all_picks.end());
  std::vector<Record> splitters;
  for (int p = 1; p < size && !all_picks.empty(); ++p)
    splitters.push_back(all_picks[p * all_picks.size() / size]);
  std::vector<std::vector<Record>> send(size);
  for (const Record& r : rec)
    send[std::upper_bound(splitters.begin(), splitters.end(), r) - splitters.begin()].push_back(r);
  std::vector<Record> got = alltoallv(comm, send);
  std::sort(got.begin(), got.end());
  return got;
}

// Collective. Global positions of the sorted records `got`; each position to the owner of its
// block of Partition(n, size) (order.input), and each input index's position to the owner of
// that input row (order.position).
void place_in_order(MPI_Comm comm, const LocalRows& data, const std::vector<Record>& got,
                    LocalityOrder& order) {
  const int size = comm_size(comm);
  const Partition part(data.n, size);
  const std::int64_t first = exscan_sum(comm, static_cast<std::int64_t>(got.size()));
  std::vector<std::vector<std::int64_t>> to_block(size);   // input indices, in position order
  std::vector<std::vector<std::int64_t>> to_input(size);   // (input index, position) pairs
  for (std::size_t t = 0; t < got.size(); ++t) {
    const std::int64_t pos = first + static_cast<std::int64_t>(t);
    to_block[part.owner(pos)].push_back(got[t].input);
    to_input[part.owner(got[t].input)].push_back(got[t].input);
    to_input[part.owner(got[t].input)].push_back(pos);
  }
  order.input = alltoallv(comm, to_block);
  const std::vector<std::int64_t> pairs = alltoallv(comm, to_input);
  order.position.assign(static_cast<std::size_t>(data.local_rows()), -1);
  for (std::size_t t = 0; t + 1 < pairs.size(); t += 2)
    order.position[pairs[t] - data.begin] = pairs[t + 1];
}

}  // namespace

std::vector<int> cube_bits(const std::vector<double>& span, int total) {
  const int dims = static_cast<int>(span.size());
  const double widest = *std::max_element(span.begin(), span.end());
  std::vector<int> fewer(static_cast<std::size_t>(dims), -1);  // -1: the span is 0, no bits
  for (int k = 0; k < dims; ++k) {
    if (span[k] > 0 && widest > 0) {
      fewer[k] = std::max(0, static_cast<int>(std::floor(std::log2(widest / span[k]))));
    }
  }
  std::vector<int> bits(static_cast<std::size_t>(dims), 0);
  for (int levels = 1; levels <= 31; ++levels) {
    std::vector<int> next(static_cast<std::size_t>(dims), 0);
    int used = 0;
    for (int k = 0; k < dims; ++k) {
      if (fewer[k] >= 0) next[k] = std::max(0, levels - fewer[k]);
      used += next[k];
    }
    if (used > total) break;
    bits = next;
  }
  return bits;
}

std::uint64_t interleave_levels(const std::uint32_t* q, const std::vector<int>& bits) {
  const int levels = bits.empty() ? 0 : *std::max_element(bits.begin(), bits.end());
  std::uint64_t key = 0;
  for (int t = levels - 1; t >= 0; --t) {
    for (std::size_t k = 0; k < bits.size(); ++k) {
      if (t < bits[k]) key = (key << 1) | ((q[k] >> t) & 1u);
    }
  }
  return key;
}

LocalityOrder locality_order(MPI_Comm comm, const LocalRows& data) {
  const std::int64_t n = data.n, d = data.d, local = data.local_rows();

  // 1. Principal directions of a sample (at most about 2^20 values), the same on every rank.
  const Principal pc = principal_directions(comm, data);
  const int dims = pc.dims;

  // 2. Coordinates along them, their global extremes, the key of each local row: cells of
  // about equal width along every direction, coarse to fine (cube_bits, interleave_levels).
  auto project = [&](const float* row, double* out) {
    for (int k = 0; k < kKeyDims; ++k) out[k] = 0.0;
    for (int k = 0; k < dims; ++k)
      for (std::int64_t t = 0; t < d; ++t) out[k] += (row[t] - pc.mean[t]) * pc.V(t, k);
  };
  std::vector<double> coord(static_cast<std::size_t>(local * kKeyDims), 0.0);
  double lo[kKeyDims], hi[kKeyDims];
  for (int k = 0; k < kKeyDims; ++k) {
    lo[k] = std::numeric_limits<double>::infinity();
    hi[k] = -lo[k];
  }
  for (std::int64_t r = 0; r < local; ++r) {
    project(data.row(r), &coord[r * kKeyDims]);
    for (int k = 0; k < dims; ++k) {
      lo[k] = std::min(lo[k], coord[r * kKeyDims + k]);
      hi[k] = std::max(hi[k], coord[r * kKeyDims + k]);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, lo, kKeyDims, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, hi, kKeyDims, MPI_DOUBLE, MPI_MAX, comm);
  std::vector<double> span(static_cast<std::size_t>(dims));
  for (int k = 0; k < dims; ++k) span[k] = hi[k] - lo[k];
  const std::vector<int> bits = cube_bits(span, kKeyBits);
  auto key_of = [&](const double* x) {
    std::uint32_t q[kKeyDims] = {};
    for (int k = 0; k < dims; ++k) {
      const double cells = std::ldexp(1.0, bits[k]);  // q in [0, 2^bits)
      const double u = span[k] > 0 ? (x[k] - lo[k]) / span[k] : 0.0;
      q[k] = static_cast<std::uint32_t>(std::min(std::clamp(u, 0.0, 1.0) * cells, cells - 1));
    }
    return interleave_levels(q, bits);
  };
  LocalityOrder order;
  order.score = compare_on_sample(pc.sample, pc.ids, n, d, project, key_of);
  if (!(order.score.locality > kBetter * order.score.input)) return order;  // keep input order
  std::vector<Record> rec(local);
  for (std::int64_t r = 0; r < local; ++r) rec[r] = {key_of(&coord[r * kKeyDims]), data.begin + r};

  // 3. Sample sort of the records; 4. each row's place in the order.
  const std::vector<Record> got = sample_sort(comm, std::move(rec));
  place_in_order(comm, data, got, order);
  return order;
}

PairSource renumbered_pairs(MPI_Comm comm, std::int64_t n, const Candidates& cand,
                            const LocalityOrder& order) {
  const Partition part(n, comm_size(comm));
  const auto to = std::make_shared<const std::vector<std::int64_t>>(
      fetch_from_owners(comm, part, cand.idx, order.position));
  return {static_cast<std::int64_t>(cand.idx.size()),
          [&cand, &order, to](std::int64_t first, std::int64_t count, EdgeEntry* out) {
            for (std::int64_t t = first; t < first + count; ++t) {
              const std::int64_t u = order.position[t / cand.m], v = (*to)[t];
              *out++ = {std::min(u, v), std::max(u, v), cand.dist[t], 1.0};
            }
          }};
}

}  // namespace lsgl
