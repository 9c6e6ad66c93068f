#pragma once
// --help as pinscope prints it: CLI11's layout, except that a flag pair shows as
// "--pin-memory,--no-pin-memory" and not "--no-pin-memory{false}", which reads like a default of false
// (the knob's help text says its real default).
#include <CLI/CLI.hpp>

namespace pinscope {

class HelpFormatter : public CLI::Formatter {
  public:
    std::string make_option_name(const CLI::Option* option, bool is_positional) const override {
        std::string name = CLI::Formatter::make_option_name(option, is_positional);
        for (size_t open = name.find('{'); open != std::string::npos; open = name.find('{', open)) {
            const size_t close = name.find('}', open);
            if (close == std::string::npos) break;
            name.erase(open, close - open + 1);
        }
        return name;
    }
};

}  // namespace pinscope
