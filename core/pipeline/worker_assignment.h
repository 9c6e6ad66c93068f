#pragma once
// Which worker the next batch goes to, as PyTorch's DataLoader decides it. in_order: strict round
// robin, batch i to worker i mod W, so batches come back in order. Otherwise the least-loaded worker,
// searched from the round-robin position so that ties still rotate. The loader (data_loader.cpp) and
// the predictor's model of it (pipeline_model_loop.cpp) both assign through this.
#include <vector>

namespace pinscope {

class WorkerAssignment {
  public:
    WorkerAssignment(int workers, bool in_order)
        : tasks_(static_cast<size_t>(workers), 0), in_order_(in_order) {}

    // The worker for the next batch, counted as one more task on it.
    int assign() {
        const int workers = static_cast<int>(tasks_.size());
        int chosen = next_;
        if (!in_order_)
            for (int k = 0; k < workers; ++k) {
                const int w = (next_ + k) % workers;
                if (tasks_[w] < tasks_[chosen]) chosen = w;
            }
        next_ = (chosen + 1) % workers;
        ++tasks_[chosen];
        return chosen;
    }
    // `worker` has delivered one of its batches.
    void delivered(int worker) { --tasks_[worker]; }

  private:
    std::vector<int> tasks_;  // batches sent to each worker and not yet delivered
    int next_ = 0;
    bool in_order_;
};

}  // namespace pinscope
