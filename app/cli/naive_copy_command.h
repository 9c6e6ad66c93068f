#pragma once
// `pinscope naive-copy-child` (hidden): the naive benchmark's fresh process on a real GPU
// (core/device/naive_copy.h). A session starts it; people do not.
#include <CLI/CLI.hpp>

#include "app/cli/command.h"

namespace pinscope {

Command add_naive_copy_child_command(CLI::App& app);

}  // namespace pinscope
