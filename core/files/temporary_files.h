#pragma once
// The temporary files this process has open for writing (OutputFile's, before each is renamed into
// place), kept where a signal handler can find them: a killed pinscope must not leave a hidden
// `.NAME.tmpPID-N` beside the file it was writing. Registering and forgetting take no lock;
// remove_all_temporaries_now() is async-signal-safe.
#include <filesystem>

namespace pinscope {

// Remembers `path` until forget_temporary(); returns its slot, or -1 when every slot is taken (the
// temporary is then still removed on every ordinary exit path, only not by a signal handler).
int register_temporary(const std::filesystem::path& path);
void forget_temporary(int slot);

// Unlinks every registered temporary. Async-signal-safe: for a handler that is about to end the process.
void remove_all_temporaries_now() noexcept;

// The user asked the process to stop (Ctrl-C, SIGTERM, SIGHUP): the signal's number, or 0. Set by the
// app's signal handlers (note_stop_signal is async-signal-safe); read by waits in core that have no
// other way to learn of it, such as waiting for a reader to open a FIFO.
int stop_signal();
void note_stop_signal(int signal_number) noexcept;
void clear_stop_signal();

}  // namespace pinscope
