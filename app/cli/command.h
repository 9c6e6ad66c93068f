#pragma once
// A subcommand: its CLI11 parser and what to run once the command line has parsed.
#include <functional>

#include <CLI/CLI.hpp>

namespace pinscope {

struct Command {
    CLI::App* parser = nullptr;
    std::function<int()> run;  // returns the exit code
};

}  // namespace pinscope
