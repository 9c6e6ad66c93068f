#include "core/pipeline/pipeline_thread.h"

#include <pthread.h>

namespace pinscope {
namespace {
std::atomic<int> g_live_threads{0};
}

int live_pipeline_threads() {
    return g_live_threads.load();
}

void PipelineThread::started() {
    ++g_live_threads;
}
void PipelineThread::finished() {
    --g_live_threads;
}

void PipelineThread::name_this_thread(const std::string& name) {
    // Linux limits thread names to 15 characters.
    pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

}  // namespace pinscope
