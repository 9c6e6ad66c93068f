#pragma once
// `pinscope lesson`: the lessons of assets/lessons/ from the command line. Without a name it lists them;
// with one it asks the lesson's question, runs its runs on this machine (progress on stderr), then
// reveals the answer with the measured numbers and whether the lesson's promise held.
#include "app/cli/command.h"

namespace pinscope {

Command add_lesson_command(CLI::App& app);

}  // namespace pinscope
