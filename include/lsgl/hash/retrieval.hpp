#pragma once
// Hamming ranking and its measures. Codes are stored packed: bit k of a code is bit (k % 8) of
// byte k / 8 (1 for +1), ceil(bits / 8) bytes per code.
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace lsgl::hash {

// Local. Packs rows x bits codes (+-1) / unpacks them.
std::vector<std::uint8_t> pack_codes(const std::vector<std::int8_t>& codes, int bits);
std::vector<std::int8_t> unpack_codes(const std::vector<std::uint8_t>& packed, int bits);
inline std::int64_t code_bytes(int bits) { return (bits + 7) / 8; }

struct RetrievalScore {
  std::int64_t queries = 0;
  double map = 0.0;                // mean over queries of the average precision
  double precision_at_k = 0.0;     // mean over queries of the precision of the top k
  std::int64_t k = 500;
  std::int64_t no_relevant = 0;    // queries with no item of their label in the database (AP 0)
};

// Local. Average precision of one query over the full ranking of the database by Hamming
// distance, ties broken by database index: AP = (1/R) sum over relevant items at rank j of
// (relevant items in the top j) / j, R = relevant items in the database (0 when R = 0); and the
// precision of the first k ranked items (k capped at the database size).
void rank_query(const std::uint8_t* query, std::int32_t query_label,
                const std::vector<std::uint8_t>& database,
                const std::vector<std::int32_t>& database_labels, int bits, std::int64_t k,
                double* average_precision, double* precision_at_k);

// Collective. Each rank passes its block of queries (packed codes and labels) and the whole
// database; the means are summed reproducibly over all queries.
RetrievalScore evaluate_retrieval(MPI_Comm comm, const std::vector<std::uint8_t>& queries,
                                  const std::vector<std::int32_t>& query_labels,
                                  const std::vector<std::uint8_t>& database,
                                  const std::vector<std::int32_t>& database_labels, int bits,
                                  std::int64_t k);

}  // namespace lsgl::hash
