/// @file csmv.cu
/// @brief CSMV, its ablations and JVSTM-GPU (flags) for the bank and the memcached cache. Launch
///        cooperatively (all blocks resident): block 0 is the server when flags has kServer.
#include "gstm/csmv.cuh"
#include "gstm/workloads/bank_mv.cuh"
#include "gstm/workloads/memcached.cuh"

/// @brief CSMV bank batch. @param a store, table, outputs, flags (gstm::csmv::Args)
extern "C" __global__ void __launch_bounds__(256) gstm_csmv_bank(const __grid_constant__ gstm::csmv::Args a) {
  gstm::csmv::run<gstm::bank_mv::Ops>(a);
}

/// @brief CSMV memcached batch. @param a store, table, outputs, flags (gstm::csmv::Args)
extern "C" __global__ void __launch_bounds__(256) gstm_csmv_memcached(const __grid_constant__ gstm::csmv::Args a) {
  gstm::csmv::run<gstm::memcached::Ops>(a);
}
