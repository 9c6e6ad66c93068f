#include "app/cli/cli_words.h"

#include <cctype>

#include "core/config/knobs.h"

namespace pinscope {
namespace {

bool identifier_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool value_char(char c) {
    return identifier_char(c) || c == '-' || c == '.';
}

// "but got batch_size=0" (PyTorch's words) quotes what was given: it stays as it is.
bool quotes_a_value(const std::string& text, size_t at) {
    constexpr std::string_view kGot = "got ";
    return at >= kGot.size() && text.compare(at - kGot.size(), kGot.size(), kGot) == 0;
}

}  // namespace

std::string flag_for(std::string_view config_key) {
    std::string flag = "--" + std::string(config_key);
    for (char& ch : flag)
        if (ch == '_') ch = '-';
    return flag;
}

std::string negated_flag_for(std::string_view config_key) {
    std::string flag = flag_for(config_key);
    flag.insert(2, "no-");
    return flag;
}

std::string cli_words(std::string_view message) {
    std::string out(message);
    for (const Knob& knob : knobs()) {
        const std::string pattern = std::string(knob.key) + "=";
        for (size_t at = out.find(pattern); at != std::string::npos; at = out.find(pattern, at + 1)) {
            if (at > 0 && identifier_char(out[at - 1])) continue;
            if (quotes_a_value(out, at)) continue;
            const size_t value_start = at + pattern.size();
            size_t end = value_start;
            while (end < out.size() && value_char(out[end])) ++end;
            while (end > value_start && out[end - 1] == '.') --end;  // a sentence's full stop
            const std::string value = out.substr(value_start, end - value_start);
            std::string words = flag_for(knob.key) + " " + value;
            if (knob.type == KnobType::boolean)
                words = value == "false" ? negated_flag_for(knob.key) : flag_for(knob.key);
            out.replace(at, end - at, words);
        }
    }
    return out;
}

}  // namespace pinscope
