#pragma once
// `pinscope info`: what this build can do and which devices it sees.
#include "app/cli/command.h"

namespace pinscope {

Command add_info_command(CLI::App& app);

}  // namespace pinscope
