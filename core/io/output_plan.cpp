#include "core/io/output_plan.h"

#include <fmt/format.h>

#include "core/io/capture.h"

namespace pinscope {
namespace {

// Writing the same stream twice is harmless only where the bytes go nowhere.
bool discards_everything(const OutputFile& file) {
    return file.kind() == OutputFile::Kind::stream && file.existing() == identify_file("/dev/null");
}

std::filesystem::path comparable(const std::filesystem::path& path) {
    std::error_code error;
    const std::filesystem::path absolute = std::filesystem::absolute(path, error);
    return (error ? path : absolute).lexically_normal();
}

}  // namespace

void OutputPlan::add_input(const std::filesystem::path& path, std::string label) {
    if (path.empty()) return;
    inputs_.push_back({path, std::move(label), identify_file(path)});
}

OutputFile OutputPlan::add_output(const std::filesystem::path& path, const std::string& label,
                                  std::string what, OutputFormat format) {
    OutputFile file;
    try {
        file = OutputFile(path, what);
    } catch (const OutputPathError& e) {
        throw e.labelled(label);
    }
    auto refuse = [&](const std::string& problem) { return OutputPathError(path, problem, label); };
    const FileIdentity there = file.existing();
    for (const Input& input : inputs_)
        if (there.exists() && input.identity == there)
            throw refuse(
                fmt::format("that is {}, which this command reads; write to another file", input.label));
    if (!discards_everything(file))
        for (const Output& other : outputs_)
            if ((there.exists() && other.identity == there) || other.target == comparable(file.target()))
                throw refuse(
                    fmt::format("{} writes there too; give each output a file of its own", other.label));
    if (format != OutputFormat::capture && file.kind() == OutputFile::Kind::file && there.exists() &&
        looks_like_capture(file.target()))
        throw refuse(
            fmt::format("that file is a pinscope capture, which writing {} there would destroy; name "
                        "another file, or remove it first",
                        what));
    outputs_.push_back({comparable(file.target()), label, there});
    return file;
}

}  // namespace pinscope
