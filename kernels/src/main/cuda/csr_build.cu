/// @file csr_build.cu
/// @brief A graph's CSR built on the device from its edge list, to the very arrays the host
///        build (io.gstm.core.graph.CsrGraph.fromEdges) makes: self-loops dropped, each vertex's
///        out-edges sorted by target, of duplicate edges the lightest weight kept (the first in
///        input order among equals). Host twin: io.gstm.core.cuda.CudaCsrBuild.
///
/// The edges become 64-bit keys (source << shift | target) with their input positions, sorted
/// by a least-significant-digit radix sort of 8-bit digits: per digit, each tile counts its
/// digits (gstm_csr_histogram), an exclusive scan over the digit-major counts gives every
/// (digit, tile) its place (gstm_csr_scan_*), and each tile sorts itself by the digit with
/// CUB's block radix sort (stable, loaded and sorted through shared memory so that a warp reads
/// and writes consecutive keys) and writes each key to its place (gstm_csr_scatter). Stable
/// digit by digit, the sort keeps input order among equal keys. Then the first key of each run
/// is flagged (gstm_csr_heads), the flags scanned, the runs written out with their lightest
/// weight (gstm_csr_compact), and each vertex's offset found by binary search
/// (gstm_csr_offsets). A build numbered by degree renames the ends first: each vertex's degree
/// counted (gstm_csr_degrees), the vertices sorted by it with the same radix passes
/// (gstm_csr_degree_keys), each given its place in that order (gstm_csr_invert), and the edges'
/// ends mapped through it (gstm_csr_map_ids).
#include <cstdint>

#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

namespace gstm::csr {

constexpr int kThreads = 256;
constexpr int kItems = 8;
constexpr int kTile = kThreads * kItems;  ///< keys per tile; the host's CudaCsrBuild.TILE
constexpr int kDigitBits = 8;
constexpr int kDigits = 1 << kDigitBits;
static_assert(kDigits == kThreads, "one thread per digit");

using Key = unsigned long long;

__device__ __forceinline__ uint32_t digit(Key k, uint32_t bit) {
  return static_cast<uint32_t>(k >> bit) & (kDigits - 1);
}

__device__ __forceinline__ size_t global_index() {
  return static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ size_t global_stride() {
  return static_cast<size_t>(gridDim.x) * blockDim.x;
}

}  // namespace gstm::csr

using gstm::csr::Key;
using gstm::csr::kDigits;
using gstm::csr::kItems;
using gstm::csr::kThreads;
using gstm::csr::kTile;

/// @brief Keys and positions of the edges: edge i is keys[i] = src << shift | dst; with
///        `reversed`, also keys[m + i] = dst << shift | src (the same position i: its weight).
///        Checks the ids on the way: bad[0] and bad[1] become the lowest edge whose source, or
///        target, is not a vertex (the host set them to all ones; it stops on either).
extern "C" __global__ void __launch_bounds__(256)
    gstm_csr_pack(const int32_t* src, const int32_t* dst, uint32_t m, uint32_t n,
                  uint32_t shift, uint32_t reversed, Key* keys, uint32_t* positions,
                  uint32_t* bad) {
  for (size_t i = gstm::csr::global_index(); i < m; i += gstm::csr::global_stride()) {
    // Negative ids read as unsigned: at least n as well.
    if (static_cast<uint32_t>(src[i]) >= n) atomicMin(bad, static_cast<uint32_t>(i));
    if (static_cast<uint32_t>(dst[i]) >= n) atomicMin(bad + 1, static_cast<uint32_t>(i));
    const Key u = static_cast<uint32_t>(src[i]);
    const Key v = static_cast<uint32_t>(dst[i]);
    keys[i] = u << shift | v;
    positions[i] = static_cast<uint32_t>(i);
    if (reversed) {
      keys[m + i] = v << shift | u;
      positions[m + i] = static_cast<uint32_t>(i);
    }
  }
}

/// @brief Marks each of the m ids present (present[id] = 1; racing writes of the same 1 are
///        benign): the first step of numbering the ids on the device. An id outside
///        [0, bound) is noted in bad[which] as its lowest index.
extern "C" __global__ void __launch_bounds__(256)
    gstm_csr_mark_ids(const int32_t* ids, uint32_t m, uint32_t* present, uint32_t bound,
                      uint32_t* bad, uint32_t which) {
  for (size_t i = gstm::csr::global_index(); i < m; i += gstm::csr::global_stride()) {
    const uint32_t id = static_cast<uint32_t>(ids[i]);
    if (id < bound) {
      if (present[id] == 0u) present[id] = 1u;
    } else {
      atomicMin(bad + which, static_cast<uint32_t>(i));
    }
  }
}

/// @brief ids[at[id]] = id for every present id: the vertices' ids in ascending order, at
///        (the exclusive scan of present) being each present id's vertex.
extern "C" __global__ void __launch_bounds__(256)
    gstm_csr_number_ids(const uint32_t* present, const uint32_t* at, uint32_t bound,
                        int32_t* ids) {
  for (size_t id = gstm::csr::global_index(); id < bound; id += gstm::csr::global_stride()) {
    if (present[id] != 0u) ids[at[id]] = static_cast<int32_t>(id);
  }
}

/// @brief Adds each of the m ids' edge end to its vertex's degree (degree[id] += 1: out plus in,
///        duplicates and self-loops counted, as io.gstm.core.graph.DegreeOrder counts): the first
///        step of numbering the vertices by degree. An id outside [0, n) is skipped: the map
///        leaves it outside, and the pack names its edge.
extern "C" __global__ void __launch_bounds__(256)
    gstm_csr_degrees(const int32_t* ids, uint32_t m, uint32_t n, uint32_t* degree) {
  for (size_t i = gstm::csr::global_index(); i < m; i += gstm::csr::global_stride()) {
    const uint32_t id = static_cast<uint32_t>(ids[i]);
    if (id < n) atomicAdd(degree + id, 1u);
  }
}

/// @brief The sort's keys of a numbering by degree: keys[v] = ~degree[v] (the highest degree
///        the lowest key) and positions[v] = v, so that the stable sort lists the vertices by
///        descending degree, equal degrees in ascending order of id.
extern "C" __global__ void __launch_bounds__(256)
    gstm_csr_degree_keys(const uint32_t* degree, uint32_t n, Key* keys, uint32_t* positions) {
  for (size_t v = gstm::csr::global_index(); v < n; v += gstm::csr::global_stride()) {
    keys[v] = static_cast<uint32_t>(~degree[v]);
    positions[v] = static_cast<uint32_t>(v);
  }
}

/// @brief ids[order[i]] = i: vertex order[i], the i-th by degree, gets the new id i.
extern "C" __global__ void __launch_bounds__(256)
    gstm_csr_invert(const uint32_t* order, uint32_t n, int32_t* ids) {
  for (size_t i = gstm::csr::global_index(); i < n; i += gstm::csr::global_stride()) {
    ids[order[i]] = static_cast<int32_t>(i);
  }
}

/// @brief Maps each of the m ids through a table (ids[i] = table[ids[i]]): a caller's global ids
///        to the graph's vertices, on the device, before the pack. An id outside the table
///        becomes -1, which the pack reports as a bad edge.
extern "C" __global__ void __launch_bounds__(256)
    gstm_csr_map_ids(int32_t* ids, uint32_t m, const int32_t* table, uint32_t table_length) {
  for (size_t i = gstm::csr::global_index(); i < m; i += gstm::csr::global_stride()) {
    const uint32_t id = static_cast<uint32_t>(ids[i]);
    ids[i] = id < table_length ? __ldg(table + id) : -1;
  }
}

/// @brief bad[2] becomes the lowest edge whose weight is negative or NaN (the host set it to
///        all ones).
extern "C" __global__ void __launch_bounds__(256)
    gstm_csr_check_weights(const double* weights, uint32_t m, uint32_t* bad) {
  for (size_t i = gstm::csr::global_index(); i < m; i += gstm::csr::global_stride()) {
    if (!(weights[i] >= 0.0)) atomicMin(bad + 2, static_cast<uint32_t>(i));
  }
}

/// @brief Per tile (a block each), how many of its keys have each digit at `bit`:
///        counts[digit * tiles + tile], digit-major, so one scan orders digits then tiles.
extern "C" __global__ void __launch_bounds__(256)
    gstm_csr_histogram(const Key* keys, uint32_t m, uint32_t bit, uint32_t tiles,
                       uint32_t* counts) {
  __shared__ uint32_t h[kDigits];
  h[threadIdx.x] = 0;
  __syncthreads();
  const size_t first = static_cast<size_t>(blockIdx.x) * kTile;
  for (int j = 0; j < kItems; ++j) {
    const size_t i = first + static_cast<size_t>(j) * kThreads + threadIdx.x;
    if (i < m) atomicAdd(&h[gstm::csr::digit(keys[i], bit)], 1u);
  }
  __syncthreads();
  counts[static_cast<size_t>(threadIdx.x) * tiles + blockIdx.x] = h[threadIdx.x];
}

/// @brief Exclusive sums within each tile of `data` (n words), in place; each tile's total to
///        sums[tile]. The host scans the sums the same way and adds them back (scan_add).
extern "C" __global__ void __launch_bounds__(256)
    gstm_csr_scan_tiles(uint32_t* data, uint32_t n, uint32_t* sums) {
  using Scan = cub::BlockScan<uint32_t, kThreads>;
  __shared__ typename Scan::TempStorage tmp;
  const size_t first = static_cast<size_t>(blockIdx.x) * kTile + threadIdx.x * kItems;
  uint32_t v[kItems];
  for (int j = 0; j < kItems; ++j) v[j] = first + j < n ? data[first + j] : 0u;
  uint32_t total;
  Scan(tmp).ExclusiveSum(v, v, total);
  for (int j = 0; j < kItems; ++j) {
    if (first + j < n) data[first + j] = v[j];
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

/// @brief Adds each tile's scanned total (`sums`, exclusive) to its words of `data`.
extern "C" __global__ void __launch_bounds__(256)
    gstm_csr_scan_add(uint32_t* data, uint32_t n, const uint32_t* sums) {
  const uint32_t add = sums[blockIdx.x];
  const size_t first = static_cast<size_t>(blockIdx.x) * kTile;
  for (int j = 0; j < kItems; ++j) {
    const size_t i = first + static_cast<size_t>(j) * kThreads + threadIdx.x;
    if (i < n) data[i] += add;
  }
}

/// @brief One digit's pass: each tile (a block) sorts its keys by the digit at `bit`, stably,
///        and writes each to where the scanned counts place its (digit, tile), in tile order.
extern "C" __global__ void __launch_bounds__(256)
    gstm_csr_scatter(const Key* keys_in, const uint32_t* pos_in, uint32_t m, uint32_t bit,
                     uint32_t tiles, const uint32_t* places, Key* keys_out,
                     uint32_t* pos_out) {
  using Sort = cub::BlockRadixSort<Key, kThreads, kItems, uint32_t>;
  using Scan = cub::BlockScan<uint32_t, kThreads>;
  // Loaded through shared memory: a warp reads consecutive keys (a thread's own eight,
  // loaded directly, were 64 bytes apart across the warp).
  using LoadKeys = cub::BlockLoad<Key, kThreads, kItems, cub::BLOCK_LOAD_TRANSPOSE>;
  using LoadPositions = cub::BlockLoad<uint32_t, kThreads, kItems, cub::BLOCK_LOAD_TRANSPOSE>;
  __shared__ union {
    typename Sort::TempStorage sort;
    typename Scan::TempStorage scan;
    typename LoadKeys::TempStorage keys;
    typename LoadPositions::TempStorage positions;
  } tmp;
  __shared__ uint32_t hist[kDigits];
  __shared__ uint32_t start[kDigits];  ///< where each digit starts in the sorted tile
  __shared__ uint32_t place[kDigits];  ///< where the tile's keys of each digit go
  hist[threadIdx.x] = 0;
  __syncthreads();
  const size_t first = static_cast<size_t>(blockIdx.x) * kTile;
  const uint32_t valid =
      static_cast<uint32_t>(m - first < static_cast<size_t>(kTile) ? m - first : kTile);
  Key k[kItems];
  uint32_t p[kItems];
  // Blocked: thread t holds tile positions t * kItems + j, the order the sort keeps for ties.
  // Past the end, keys of all ones: digit kDigits - 1, after every real key of that digit.
  LoadKeys(tmp.keys).Load(keys_in + first, k, static_cast<int>(valid), ~0ull);
  __syncthreads();
  LoadPositions(tmp.positions).Load(pos_in + first, p, static_cast<int>(valid), 0u);
  for (int j = 0; j < kItems; ++j) {
    if (threadIdx.x * kItems + j < valid) atomicAdd(&hist[gstm::csr::digit(k[j], bit)], 1u);
  }
  __syncthreads();
  // Sorted into the striped arrangement: thread t holds sorted ranks j * kThreads + t, so a
  // warp writes consecutive places of a digit's run.
  Sort(tmp.sort).SortBlockedToStriped(k, p, static_cast<int>(bit),
                                      static_cast<int>(bit) + gstm::csr::kDigitBits);
  __syncthreads();
  uint32_t s;
  Scan(tmp.scan).ExclusiveSum(hist[threadIdx.x], s);
  start[threadIdx.x] = s;
  place[threadIdx.x] = places[static_cast<size_t>(threadIdx.x) * tiles + blockIdx.x];
  __syncthreads();
  for (int j = 0; j < kItems; ++j) {
    const uint32_t at = j * kThreads + threadIdx.x;
    if (at < valid) {
      const uint32_t d = gstm::csr::digit(k[j], bit);
      const size_t to = static_cast<size_t>(place[d]) + (at - start[d]);
      keys_out[to] = k[j];
      pos_out[to] = p[j];
    }
  }
}

/// @brief flags[i] = 1 where sorted key i starts a run of equal keys and is not a self-loop.
extern "C" __global__ void __launch_bounds__(256)
    gstm_csr_heads(const Key* keys, uint32_t m, uint32_t shift, uint32_t* flags) {
  const Key mask = (1ull << shift) - 1;
  for (size_t i = gstm::csr::global_index(); i < m; i += gstm::csr::global_stride()) {
    const Key k = keys[i];
    flags[i] = (k >> shift) != (k & mask) && (i == 0 || keys[i - 1] != k) ? 1u : 0u;
  }
}

/// @brief Each flagged run as edge at[i] (its exclusive scan): its source and target, and with
///        weights the lightest of the run's (input order among equal keys: the first wins a
///        tie, as on the host).
extern "C" __global__ void __launch_bounds__(256)
    gstm_csr_compact(const Key* keys, const uint32_t* positions, const uint32_t* flags,
                     const uint32_t* at, uint32_t m, uint32_t shift, const double* weights_in,
                     int32_t* sources, int32_t* targets, double* weights_out) {
  const Key mask = (1ull << shift) - 1;
  for (size_t i = gstm::csr::global_index(); i < m; i += gstm::csr::global_stride()) {
    if (flags[i] == 0) continue;
    const Key k = keys[i];
    const uint32_t o = at[i];
    sources[o] = static_cast<int32_t>(k >> shift);
    targets[o] = static_cast<int32_t>(k & mask);
    if (weights_in != nullptr) {
      double w = weights_in[positions[i]];
      for (size_t j = i + 1; j < m && keys[j] == k; ++j) {
        const double c = weights_in[positions[j]];
        if (c < w) w = c;
      }
      weights_out[o] = w;
    }
  }
}

/// @brief offsets[v] for v in 0..n: the first kept edge whose source is at least v (the kept
///        edges are sorted by source).
extern "C" __global__ void __launch_bounds__(256)
    gstm_csr_offsets(const int32_t* sources, uint32_t kept, uint32_t n, int32_t* offsets) {
  for (size_t v = gstm::csr::global_index(); v <= n; v += gstm::csr::global_stride()) {
    uint32_t lo = 0;
    uint32_t hi = kept;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (static_cast<size_t>(sources[mid]) < v) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    offsets[v] = static_cast<int32_t>(lo);
  }
}
