#pragma once
// The files one command (or one of the app's dialogs) reads and writes, checked together before any
// work starts: each output passes OutputFile's policy (core/files/output_file.h), none is one of the
// inputs, no two outputs are the same file, and none replaces a capture with a file of another kind.
// What would be lost is refused up front, with a message that names the option and the file:
//   --output v.pinscope: that is the capture it exports, which this command reads; write to another file
#include <filesystem>
#include <string>
#include <vector>

#include "core/files/output_file.h"

namespace pinscope {

enum class OutputFormat {
    capture,  // a .pinscope capture: may replace another capture
    other,    // a trace, a table, a picture, a config: may not replace a capture
};

class OutputPlan {
  public:
    // A file the command reads, described by `label` ("the capture it exports", "the --config file"). A
    // missing one is for its reader to report; it cannot be an output's file either way.
    void add_input(const std::filesystem::path& path, std::string label);

    // Readies an output named by `label` ("--capture") that will hold `what` ("the capture"). Throws
    // OutputPathError labelled with `label`; nothing has been written or created then.
    OutputFile add_output(const std::filesystem::path& path, const std::string& label, std::string what,
                          OutputFormat format);

  private:
    struct Input {
        std::filesystem::path path;
        std::string label;
        FileIdentity identity;
    };
    struct Output {
        std::filesystem::path target;
        std::string label;
        FileIdentity identity;
    };
    std::vector<Input> inputs_;
    std::vector<Output> outputs_;
};

}  // namespace pinscope
