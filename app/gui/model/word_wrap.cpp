#include "app/gui/model/word_wrap.h"

namespace pinscope::gui {
namespace {

void wrap_paragraph(std::string_view paragraph, float width, const TextWidth& measure,
                    std::vector<std::string>& lines) {
    std::string line;
    size_t at = 0;
    while (at <= paragraph.size()) {
        size_t end = paragraph.find(' ', at);
        if (end == std::string_view::npos) end = paragraph.size();
        const std::string_view word = paragraph.substr(at, end - at);
        at = end + 1;
        if (word.empty()) continue;  // runs of spaces collapse
        if (line.empty()) {
            line = word;
            continue;
        }
        std::string longer = line + ' ';
        longer += word;
        if (measure(longer) <= width) {
            line = std::move(longer);
        } else {
            lines.push_back(std::move(line));
            line = word;
        }
    }
    lines.push_back(std::move(line));  // an empty paragraph is an empty line
}

}  // namespace

std::vector<std::string> wrap_at_spaces(std::string_view text, float width, const TextWidth& measure) {
    std::vector<std::string> lines;
    size_t at = 0;
    for (;;) {
        const size_t end = text.find('\n', at);
        wrap_paragraph(text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at),
                       width, measure, lines);
        if (end == std::string_view::npos) break;
        at = end + 1;
    }
    return lines;
}

}  // namespace pinscope::gui
