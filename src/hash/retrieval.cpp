// Hamming ranking, mean average precision and precision at k (see retrieval.hpp).
#include "lsgl/hash/retrieval.hpp"

#include <algorithm>
#include <cstring>

#include "lsgl/util/mpi.hpp"
#include "lsgl/util/reproducible_sum.hpp"

namespace lsgl::hash {

std::vector<std::uint8_t> pack_codes(const std::vector<std::int8_t>& codes, int bits) {
  const std::int64_t rows = static_cast<std::int64_t>(codes.size()) / bits, nb = code_bytes(bits);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(rows * nb), 0);
  for (std::int64_t i = 0; i < rows; ++i)
    for (int k = 0; k < bits; ++k)
      if (codes[i * bits + k] > 0) out[i * nb + k / 8] |= static_cast<std::uint8_t>(1u << (k % 8));
  return out;
}

std::vector<std::int8_t> unpack_codes(const std::vector<std::uint8_t>& packed, int bits) {
  const std::int64_t nb = code_bytes(bits), rows = static_cast<std::int64_t>(packed.size()) / nb;
  std::vector<std::int8_t> out(static_cast<std::size_t>(rows * bits));
  for (std::int64_t i = 0; i < rows; ++i)
    for (int k = 0; k < bits; ++k)
      out[i * bits + k] = (packed[i * nb + k / 8] >> (k % 8)) & 1 ? 1 : -1;
  return out;
}

namespace {

int hamming(const std::uint8_t* a, const std::uint8_t* b, std::int64_t nb) {
  int d = 0;
  std::int64_t j = 0;
  for (; j + 8 <= nb; j += 8) {
    std::uint64_t x, y;
    std::memcpy(&x, a + j, 8);
    std::memcpy(&y, b + j, 8);
    d += __builtin_popcountll(x ^ y);
  }
  for (; j < nb; ++j) d += __builtin_popcount(static_cast<unsigned>(a[j] ^ b[j]));
  return d;
}

}  // namespace

void rank_query(const std::uint8_t* query, std::int32_t query_label,
                const std::vector<std::uint8_t>& database,
                const std::vector<std::int32_t>& database_labels, int bits, std::int64_t k,
                double* average_precision, double* precision_at_k) {
  const std::int64_t nb = code_bytes(bits), n = static_cast<std::int64_t>(database_labels.size());
  // Counting sort by distance (stable, so ties stay in index order): per distance, the number
  // of items and of relevant items is all the ranking needs.
  std::vector<std::int64_t> count(bits + 1, 0), relevant(bits + 1, 0);
  std::vector<std::uint16_t> dist(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const int d = hamming(query, database.data() + i * nb, nb);
    dist[i] = static_cast<std::uint16_t>(d);
    ++count[d];
    relevant[d] += database_labels[i] == query_label;
  }
  std::int64_t total_relevant = 0;
  for (int d = 0; d <= bits; ++d) total_relevant += relevant[d];
  // The ranking's relevance flags in order: items placed by distance, in index order within one.
  std::vector<std::int64_t> pos(bits + 1, 0);
  for (int d = 1; d <= bits; ++d) pos[d] = pos[d - 1] + count[d - 1];
  std::vector<std::uint8_t> rel(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) rel[pos[dist[i]]++] = database_labels[i] == query_label;
  double ap = 0.0;
  std::int64_t hits = 0, hits_at_k = 0;
  const std::int64_t kk = std::min(k, n);
  for (std::int64_t j = 0; j < n; ++j) {
    if (rel[j]) {
      ++hits;
      ap += static_cast<double>(hits) / static_cast<double>(j + 1);
    }
    if (j + 1 == kk) hits_at_k = hits;
    if (hits == total_relevant && j + 1 >= kk) break;
  }
  *average_precision = total_relevant > 0 ? ap / static_cast<double>(total_relevant) : 0.0;
  *precision_at_k = kk > 0 ? static_cast<double>(hits_at_k) / static_cast<double>(kk) : 0.0;
}

RetrievalScore evaluate_retrieval(MPI_Comm comm, const std::vector<std::uint8_t>& queries,
                                  const std::vector<std::int32_t>& query_labels,
                                  const std::vector<std::uint8_t>& database,
                                  const std::vector<std::int32_t>& database_labels, int bits,
                                  std::int64_t k) {
  RetrievalScore s;
  s.k = k;
  const std::int64_t nb = code_bytes(bits), local = static_cast<std::int64_t>(query_labels.size());
  s.queries = allreduce_sum(comm, local);
  ReproducibleSum map(1.0, std::max<std::int64_t>(1, s.queries)),
      prec(1.0, std::max<std::int64_t>(1, s.queries));
  std::vector<std::int64_t> per_label;
  for (std::int32_t l : database_labels) {
    if (l >= static_cast<std::int32_t>(per_label.size())) per_label.resize(l + 1, 0);
    ++per_label[l];
  }
  std::int64_t none = 0;
  for (std::int64_t q = 0; q < local; ++q) {
    double ap = 0.0, p = 0.0;
    rank_query(queries.data() + q * nb, query_labels[q], database, database_labels, bits, k, &ap,
               &p);
    map.add(ap);
    prec.add(p);
    const std::int32_t l = query_labels[q];
    none += l < 0 || l >= static_cast<std::int32_t>(per_label.size()) || per_label[l] == 0;
  }
  const double sm = map.result(comm), sp = prec.result(comm);
  s.no_relevant = allreduce_sum(comm, none);
  if (s.queries > 0) {
    s.map = sm / static_cast<double>(s.queries);
    s.precision_at_k = sp / static_cast<double>(s.queries);
  }
  return s;
}

}  // namespace lsgl::hash
