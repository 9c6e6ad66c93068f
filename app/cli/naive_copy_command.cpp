#include "app/cli/naive_copy_command.h"

#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "app/cli/usage_error.h"
#include "core/device/naive_copy.h"

namespace pinscope {

Command add_naive_copy_child_command(CLI::App& app) {
    CLI::App* cmd =
        app.add_subcommand("naive-copy-child", "The naive benchmark's fresh process (started by a session)");
    cmd->group("");  // not listed: a session runs it
    auto request = std::make_shared<std::string>();
    cmd->add_option("request", *request, "The request, as JSON: bytes, pinned, non_blocking, gpu")
        ->required();
    return {cmd, [request] {
                NaiveCopyRequest parsed;
                try {
                    parsed = naive_copy_request(*request);
                } catch (const std::invalid_argument& e) {
                    throw UsageError(e.what());
                }
                std::cout << run_naive_copy_here(parsed).dump() << "\n" << std::flush;
                return kExitOk;
            }};
}

}  // namespace pinscope
