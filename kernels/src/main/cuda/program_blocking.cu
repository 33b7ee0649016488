/// @file program_blocking.cu
/// @brief Transaction programs under Cederman's blocking STM (blocking.cuh) inside run_semantic,
///        one kernel per set capacity: gstm_program_blocking_s{2,4,8,16,32,64}(view, tab, out,
///        args); args.backoff is the wait after an abort.
#include "gstm/lock_table_policies.cuh"
#include "gstm/program_semantic.cuh"

GSTM_PROGRAM_LOCK_TABLE_ALL(blocking, (gstm::BlockingPolicy{args.backoff}))
