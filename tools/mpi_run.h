// `mpirun -n N vkxla run MODULE ...`: one rank per process of the module's
// grid. Rank 0 reads the inputs and hands each rank its values, every rank
// runs its process with an MPI transport for the collectives (each member
// of a group gets every member's operands and combines them as
// ops/collectives.h says), and rank 0 gathers the results and writes them.
// Built only where Open MPI is (VKXLA_WITH_MPI); elsewhere a run under
// mpirun is a clear error.
#pragma once

#include <functional>
#include <vector>

#include "ir/literal.h"
#include "ops/process_rendezvous.h"

namespace vkxla {

// Whether mpirun started this process (Open MPI's environment says so).
bool LaunchedByMpirun();

// Process `context.self`'s result from its arguments.
using ProcessRunner = std::function<StatusOr<Literal>(const std::vector<Literal>& arguments, const ProcessContext& context)>;

// Runs this rank's process of `grid`; `read_arguments` (called on rank 0)
// gives every process's arguments, of `parameter_types`. Rank 0 gets every
// process's result, the other ranks an empty list.
StatusOr<std::vector<Literal>> RunMpiRanks(ProcessGrid grid, const std::vector<ElementType>& parameter_types,
                                           const std::function<StatusOr<std::vector<std::vector<Literal>>>()>& read_arguments,
                                           const ProcessRunner& run);
// This rank (0 outside mpirun, or before RunMpiRanks).
int MpiRank();
// Ends the MPI run: MPI_Finalize, or MPI_Abort after an error (a rank that
// failed must not leave the others waiting).
void FinishMpi(bool failed);

}  // namespace vkxla
