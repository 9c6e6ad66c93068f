#pragma once
// A joined-on-destruction thread that counts itself, so tests can prove that a rebuilt or stopped
// pipeline leaves no thread behind, and names itself, so debuggers and `top -H` show the roles.
#include <atomic>
#include <string>
#include <thread>

namespace pinscope {

// Threads started by pipelines (workers, pin threads, train loops) that have not yet finished.
int live_pipeline_threads();

class PipelineThread {
  public:
    PipelineThread() = default;
    template <class Body>
    PipelineThread(std::string name, Body body) {
        started();
        thread_ = std::thread([name = std::move(name), body = std::move(body)]() mutable {
            struct CountDown {
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
    static void started();
    static void finished();
    static void name_this_thread(const std::string& name);
    std::thread thread_;
};

}  // namespace pinscope
