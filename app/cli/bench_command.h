#pragma once
// `pinscope bench`: the engine's own speed. Batches/s through the host pipeline (workers, queues,
// reorder buffer, pin stage, train loop, the simulated GPU's bookkeeping) with a dataset that costs
// nothing and kernels that take no time, so only pinscope's overhead is left. Printed, not asserted.
#include "app/cli/command.h"

namespace pinscope {

Command add_bench_command(CLI::App& app);

}  // namespace pinscope
