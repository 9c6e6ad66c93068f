#include "core/pipeline/pipeline_thread.h"

#include <pthread.h>

#include <mutex>
#include <unordered_map>

namespace pinscope {
namespace {

std::atomic<int> g_live_threads{0};

// The CPU clocks of the pipeline threads running now, and what the finished ones ran. A thread takes its
// clock out, with its last reading, before it exits: a clock of a thread that has exited reads nothing.
struct CpuAccount {
    std::mutex mutex;
    std::unordered_map<pthread_t, clockid_t> running;
    TimeNs finished_ns = 0;
};
CpuAccount& cpu_account() {
    static CpuAccount account;
    return account;
}

}  // namespace

int live_pipeline_threads() {
    return g_live_threads.load();
}

TimeNs pipeline_threads_cpu_ns() {
    CpuAccount& account = cpu_account();
    const std::lock_guard lock(account.mutex);
    TimeNs total = account.finished_ns;
    for (const auto& [thread, clock] : account.running) total += cpu_clock_ns(clock);
    return total;
}

void PipelineThread::started() {
    ++g_live_threads;
}

void PipelineThread::entered() {
    clockid_t clock{};
    if (pthread_getcpuclockid(pthread_self(), &clock) != 0) return;
    CpuAccount& account = cpu_account();
    const std::lock_guard lock(account.mutex);
    account.running[pthread_self()] = clock;
}

void PipelineThread::finished() {
    {
        CpuAccount& account = cpu_account();
        const std::lock_guard lock(account.mutex);
        if (account.running.erase(pthread_self()) > 0) account.finished_ns += thread_cpu_ns();
    }
    --g_live_threads;
}

void PipelineThread::name_this_thread(const std::string& name) {
    // Linux limits thread names to 15 characters.
    pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

}  // namespace pinscope
