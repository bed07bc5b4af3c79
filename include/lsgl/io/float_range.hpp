#pragma once
// The range of data values that single-precision distance arithmetic handles. The candidate
// search (its engines, Faiss's k-means, the voronoi and route bounds, the recall estimate)
// computes squared distances, norms and dot products of the rows in float. With s the largest
// |x_ij| of an n x d matrix, a squared distance is at most 4 d s^2 and a norm or dot product at
// most d s^2. The data are accepted when s = 0 or
//   4 d s^2 <= FLT_EPSILON * FLT_MAX   (about 4.1e31: every squared distance, and float sums of
//                                      up to 2^23 of them, stay finite), and
//   s^2 >= FLT_MIN / FLT_EPSILON       (s >= 3.1e-16: a squared difference down to
//                                      sqrt(FLT_EPSILON) s, about 3.5e-4 s, is a normal float,
//                                      not lost to underflow).
// For d = 784 that is 3.1e-16 <= s <= 1.1e14. Outside, float distances overflow (Faiss's k-means
// then aborts) or lose their digits, so the data are refused with a request to rescale them.
#include <mpi.h>

#include <cstdint>
#include <string>

#include "lsgl/io/dataset.hpp"

namespace lsgl {

// Local. The largest and the smallest non-zero max |x_ij| accepted for d columns.
double single_precision_max_abs(std::int64_t d);
double single_precision_min_abs();

// Collective. Throws CollectiveError on every rank, with a one-line message that starts with
// `what` and says by which power of ten to rescale, when the largest |x_ij| of the whole matrix
// is outside the range above (or not finite).
void check_single_precision_range(MPI_Comm comm, const LocalRows& data, const std::string& what);

}  // namespace lsgl
