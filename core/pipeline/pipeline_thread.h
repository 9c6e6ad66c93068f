#pragma once
// A joined-on-destruction thread that counts itself, so tests can prove that a rebuilt or stopped
// pipeline leaves no thread behind, names itself, so debuggers and `top -H` show the roles, and counts
// the CPU time it runs, so the app can tell the pipeline's load on the host from everything else's.
#include <atomic>
#include <string>
#include <thread>

#include "core/trace/clock.h"

namespace pinscope {

// Threads started by pipelines (workers, pin threads, train loops) that have not yet finished.
int live_pipeline_threads();
// The CPU time (user and system) that every pipeline thread of this process has run, finished ones
// included.
TimeNs pipeline_threads_cpu_ns();

class PipelineThread {
  public:
    PipelineThread() = default;
    template <class Body>
    PipelineThread(std::string name, Body body) {
        started();
        thread_ = std::thread([name = std::move(name), body = std::move(body)]() mutable {
            struct CountDown {
                CountDown() { entered(); }
                ~CountDown() { finished(); }
            } count_down;
            name_this_thread(name);
            body();
        });
    }
    PipelineThread(PipelineThread&&) = default;
    PipelineThread& operator=(PipelineThread&& other) {
        join();
        thread_ = std::move(other.thread_);
        return *this;
    }
    ~PipelineThread() { join(); }

    void join() {
        if (thread_.joinable()) thread_.join();
    }

  private:
    static void started();   // on the thread that starts it
    static void entered();   // on the thread itself, first
    static void finished();  // on the thread itself, last
    static void name_this_thread(const std::string& name);
    std::thread thread_;
};

}  // namespace pinscope
