#pragma once
// The advisor on the command line: the context it needs from this machine (cores, the pinned budget),
// and the advice printed for people after a run's report or a capture's (`run --advise`, `advise FILE`).
#include <ostream>

#include "core/analysis/advisor.h"

namespace pinscope {

// This host's cores, and the pinned budget the config asks for (its default: half of the RAM).
AdviceContext cli_advice_context(const PipelineConfig& config, MetricsWindow window);

// The verdict, then each finding: its title and cost, why, where to look (lanes named from `store`),
// and the fix as knobs and in words.
// How fixes are spelled: as pinscope's options (--num-workers 2), or, for an imported PyTorch trace, as
// the DataLoader arguments a user changes (num_workers=2, pin_memory=True).
enum class FixWords { options, dataloader };
void print_advice(std::ostream& out, const Advice& advice, const TraceStore& store,
                  FixWords words = FixWords::options);

}  // namespace pinscope
