#pragma once
// A failure injected for the tests that prove a failing rank ends the whole job promptly:
// MERIDIAN_FAULT = "RANK:STEP:KIND", raised on that rank after that step. KIND: throw (an
// exception), io (an I/O error), device (a fault in the next step's kernels: every fence from then
// on throws, as after a sticky CUDA error, and the timers fence as on a GPU; parallel/fence.hpp),
// nan (a NaN put into the solver's state, which the diagnostics then find; advection and CFD, whose
// restore is local to the rank), kill_in_checkpoint (SIGKILL in the middle of that step's
// checkpoint, its fields written and the file not yet closed), hang_in_finalize (the rank never
// leaves the job's end; the step is ignored).
#include <string>

namespace meridian::app {

struct InjectedFault {
  int rank = -1;
  long step = -1;
  std::string kind;
};

// From MERIDIAN_FAULT; no fault (rank -1) when it is not set.
InjectedFault injected_fault();

}  // namespace meridian::app
