/// @file program_gpustm.cu
/// @brief Transaction programs under GPU-STM (gpustm.cuh) inside run_semantic, one kernel per
///        set capacity: gstm_program_gpustm_s{2,4,8,16,32,64}(view, tab, out, args); args unused.
#include "gstm/lock_table_policies.cuh"
#include "gstm/program_semantic.cuh"

GSTM_PROGRAM_LOCK_TABLE_ALL(gpustm, gstm::GpuStmPolicy{})
