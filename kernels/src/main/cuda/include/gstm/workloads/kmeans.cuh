/// @file kmeans.cuh
/// @brief k-means centroid update: a transaction adds one block of points' contribution to one
///        centroid's accumulators. io.gstm.core.workload.kmeans.KMeansWorkload is the JVM twin.
#pragma once
#include <cstdint>

#include "gstm/semantic.cuh"

namespace gstm::kmeans {

enum Type : uint32_t { kAdd = 0 };

/// Parameter slots of the TxTable: {accRegion, pointsRegion, assignRegion, dims}.
enum Param : int { kAccRegion = 0, kPointsRegion = 1, kAssignRegion = 2, kDims = 3 };

/// Column 0 the centroid c, column 1 the block's first point, column 2 its point count,
/// column 3 the first word of the record slice (records are [count, sum_0 .. sum_{dims-1}]).
/// For every word j of the slice: sum over the block's points assigned to c, then read the
/// accumulator and write it back increased. Points and assignment are read-only (read_shared).
template <int CAPACITY>
struct Ops {
  template <class Tx>
  __device__ __forceinline__ static long long run(Tx& tx, const TxTable& tab, uint32_t t,
                                                  uint32_t) {
    const uint32_t acc = static_cast<uint32_t>(tab.params[kAccRegion]);
    const uint32_t points = static_cast<uint32_t>(tab.params[kPointsRegion]);
    const uint32_t assign = static_cast<uint32_t>(tab.params[kAssignRegion]);
    const uint32_t dims = static_cast<uint32_t>(tab.params[kDims]);
    const int32_t c = tab.col(0, t);
    const uint32_t first = static_cast<uint32_t>(tab.col(1, t));
    const uint32_t end = first + static_cast<uint32_t>(tab.col(2, t));
    const uint32_t w0 = static_cast<uint32_t>(tab.col(3, t));
    const uint32_t base = static_cast<uint32_t>(c) * (dims + 1);
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      const uint32_t j = w0 + s;
      if (j <= dims) {
        double sum = 0;
        for (uint32_t p = first; p < end; ++p) {
          if (static_cast<int32_t>(tx.read_shared(assign, p)) == c) {
            sum += j == 0 ? 1.0
                          : __longlong_as_double(static_cast<long long>(
                                tx.read_shared(points, p * dims + j - 1)));
          }
        }
        const double old = __longlong_as_double(static_cast<long long>(tx.read(acc, base + j)));
        tx.write(acc, base + j, static_cast<uint64_t>(__double_as_longlong(old + sum)));
      }
    }
    return 0;
  }
};

}  // namespace gstm::kmeans
