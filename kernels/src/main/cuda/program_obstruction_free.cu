/// @file program_obstruction_free.cu
/// @brief Transaction programs under Cederman's obstruction-free STM (obstruction_free.cuh)
///        inside run_semantic, one kernel per set capacity:
///        gstm_program_of_s{2,4,8,16,32,64}(view, tab, out, args); args.backoff is the wait after
///        an abort, args.descriptors the public descriptors, one per thread, zeroed.
#include "gstm/lock_table_policies.cuh"
#include "gstm/program_semantic.cuh"

GSTM_PROGRAM_LOCK_TABLE_ALL(of, (gstm::ObstructionFreePolicy{args.backoff, args.descriptors}))
