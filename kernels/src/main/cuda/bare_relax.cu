/// @file bare_relax.cu
/// @brief The bound `gstm bench-graph` prints beside gstm's graph kernel (as `limits` does for
///        the bank): data-driven Bellman-Ford with bare 64-bit atomicMin on the values, no
///        isolation, a warp per frontier vertex. Host twin: io.gstm.core.cuda.BareRelaxKernel.
///
/// Values are doubles kept as their bits: non-negative doubles (distances, component labels,
/// +infinity) order as their bit patterns, so an unsigned 64-bit atomicMin is a min on the
/// values. A round is one launch over the frontier; a lane that lowers a target queues it for
/// the next round once (a per-vertex stamp), and the next round reads its latest value.
#include <cstdint>

namespace gstm::bare_relax {

/// The launch arguments of one round; the host packs this byte for byte.
struct BareArgs {
  const int32_t* offsets;        ///< [vertices + 1] CSR offsets
  const int32_t* targets;        ///< [edges] CSR targets
  const double* weights;         ///< [edges], read only when weighted
  unsigned long long* values;    ///< [vertices] value bits
  const uint32_t* in;            ///< [in_count] this round's frontier
  uint32_t* out;                 ///< next round's frontier (room for every vertex)
  uint32_t* out_count;           ///< next round's length (zeroed by the host)
  uint32_t* stamps;              ///< [vertices] the last round that queued each vertex
  unsigned long long* examined;  ///< edges examined, re-relaxations included
  uint32_t in_count;
  uint32_t stamp;                ///< this round's stamp, unique across rounds and runs
  uint32_t components;           ///< 1: labels (weight 0), 0: shortest paths
  uint32_t weighted;             ///< shortest paths with stored weights (else weight 1)
};
static_assert(sizeof(BareArgs) == 88, "host packer assumes 88 bytes");

__device__ __forceinline__ unsigned long long load_value(const unsigned long long* p) {
  return *reinterpret_cast<const volatile unsigned long long*>(p);
}

__device__ __forceinline__ void relax_round(const BareArgs& a) {
  __shared__ unsigned long long block_examined;
  if (threadIdx.x == 0) block_examined = 0;
  __syncthreads();
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const uint32_t warps = (gridDim.x * blockDim.x) >> 5;
  unsigned long long examined = 0;
  for (uint32_t i = warp; i < a.in_count; i += warps) {
    const uint32_t u = a.in[i];
    const int32_t begin = __ldg(a.offsets + u);
    const int32_t end = __ldg(a.offsets + u + 1);
    const double du = __longlong_as_double(static_cast<long long>(load_value(a.values + u)));
    for (int32_t e = begin + static_cast<int32_t>(lane); e < end; e += 32) {
      const uint32_t v = static_cast<uint32_t>(__ldg(a.targets + e));
      const double w = a.components ? 0.0 : (a.weighted ? __ldg(a.weights + e) : 1.0);
      const unsigned long long candidate =
          static_cast<unsigned long long>(__double_as_longlong(du + w));
      // A plain read first: most edges do not improve, and a failed atomic still costs one.
      if (candidate < load_value(a.values + v)) {
        const unsigned long long old = atomicMin(a.values + v, candidate);
        if (candidate < old && atomicExch(a.stamps + v, a.stamp) != a.stamp) {
          a.out[atomicAdd(a.out_count, 1u)] = v;
        }
      }
    }
    if (lane == 0) examined += static_cast<unsigned long long>(end - begin);
  }
  // Counters summed per block, then one atomic.
  if (examined != 0) atomicAdd(&block_examined, examined);
  __syncthreads();
  if (threadIdx.x == 0 && block_examined != 0) atomicAdd(a.examined, block_examined);
}

}  // namespace gstm::bare_relax

/// @brief One round of bare relaxation over the frontier `a.in`, filling `a.out`.
/// @param a the round's arguments (BareArgs, 88 bytes)
extern "C" __global__ void __launch_bounds__(256)
    gstm_bare_relax_round(gstm::bare_relax::BareArgs a) {
  gstm::bare_relax::relax_round(a);
}
