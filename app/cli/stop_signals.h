#pragma once
// How pinscope ends when told to: Ctrl-C (SIGINT), SIGTERM (what `kill`, systemd and batch schedulers
// send) and SIGHUP (a closed terminal).
// - While a command that can stop cleanly runs (a StopHandled in scope: a run, a sweep, a lesson, the
//   app), the first signal only asks it to stop: it prints its summary, writes every file it was asked
//   for, and exits 128 + the signal's number (130, 143, 129). A second signal ends the process at once.
// - Otherwise (reading a capture, exporting a picture) the signal ends the process at once.
// Either way no temporary file is left behind (core/files/temporary_files.h).
namespace pinscope {

// Once, before any command runs.
void install_stop_signals();

// The signal received, or 0: what a command's loop polls to stop (core/files/temporary_files.h keeps it).
int received_stop_signal();

// 128 + the signal received (the shell's convention for a process ended by a signal), else `code`.
int exit_code_after_signals(int code);

// Marks a stretch in which the first stop signal is the command's to handle.
class StopHandled {
  public:
    StopHandled();
    ~StopHandled();
    StopHandled(const StopHandled&) = delete;
    StopHandled& operator=(const StopHandled&) = delete;
};

}  // namespace pinscope
