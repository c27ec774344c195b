#pragma once
// Exit codes of `meridian`, documented in the README; job scripts act on them.
namespace meridian::app {
enum ExitCode : int {
  success = 0,
  runtime_failure = 1,  // non-finite state, I/O failure, any error while running
  input_error = 2,      // bad command line or deck: nothing was run or written
  restart_error = 3,    // no usable checkpoint, or one the deck cannot continue
  preempted = 75,       // stopped by SIGTERM/SIGUSR1 after writing a checkpoint: restart with --restart latest
};
}  // namespace meridian::app
