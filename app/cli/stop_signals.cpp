#include "app/cli/stop_signals.h"

#include <signal.h>

#include <atomic>

#include "core/files/temporary_files.h"

namespace pinscope {
namespace {

std::atomic<int> g_handled_depth{0};
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

void on_stop_signal(int signal_number) {
    const bool first = stop_signal() == 0;
    note_stop_signal(signal_number);
    if (first && g_handled_depth.load(std::memory_order_relaxed) > 0) return;  // the command stops itself
    remove_all_temporaries_now();
    // End as the signal itself would, so the parent sees which one: raised with the default action, it
    // is delivered when this handler returns.
    ::signal(signal_number, SIG_DFL);
    ::raise(signal_number);
}

}  // namespace

void install_stop_signals() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    for (int s : kStopSignals) sigaddset(&action.sa_mask, s);  // one handler at a time
    action.sa_flags = SA_RESTART;  // reads and writes in progress go on; loops poll the flag
    for (int s : kStopSignals) {
        struct sigaction previous {};
        // A shell starts background jobs with SIGINT ignored: they should stay deaf to it.
        if (::sigaction(s, nullptr, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
        ::sigaction(s, &action, nullptr);
    }
}

int received_stop_signal() {
    return stop_signal();
}

int exit_code_after_signals(int code) {
    const int signal_number = stop_signal();
    return signal_number ? 128 + signal_number : code;
}

StopHandled::StopHandled() {
    g_handled_depth.fetch_add(1, std::memory_order_relaxed);
}

StopHandled::~StopHandled() {
    g_handled_depth.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace pinscope
