#pragma once
// `pinscope advise FILE [--json] [--cores N]`: the advisor over a capture (.pinscope): the verdict
// (input-bound or not) and the findings, each with its evidence and a fix, computed from the capture's
// spans over the window its metrics were measured in.
#include "app/cli/command.h"

namespace pinscope {

Command add_advise_command(CLI::App& app);

}  // namespace pinscope
