#pragma once
// A command-line option that names a file to write (--capture, --trace, --output, --csv, ...). It knows
// whether it was given at all, so that `--capture ""` is refused as bad input rather than ignored, and
// it is readied through the command's OutputPlan before the command does any work.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "core/io/output_plan.h"

namespace pinscope {

struct OutputOption {
    std::string path;
    CLI::Option* option = nullptr;

    bool given() const { return option && option->count() > 0; }
    // The option's name as messages use it: "--capture".
    std::string label() const { return option ? option->get_name() : std::string("output"); }
    // An OutputFile for the path when the option was given (throws OutputPathError labelled with the
    // option's name, which the command line reports as bad input), an empty one when it was not.
    OutputFile ready(OutputPlan& plan, std::string what, OutputFormat format = OutputFormat::other) const {
        if (!given()) return {};
        return plan.add_output(path, label(), std::move(what), format);
    }
};

// Adds `--name FILE` to `cmd`, kept in `out`.
inline CLI::Option* add_output_option(CLI::App& cmd, const std::string& name, OutputOption& out,
                                      const std::string& help) {
    out.option = cmd.add_option(name, out.path, help)->option_text("FILE");
    return out.option;
}

}  // namespace pinscope
