#pragma once
// How presets and lessons are named from their files: "03-loading-bound.json" is "loading-bound", found
// ignoring case.
#include <cctype>
#include <string>
#include <string_view>

namespace pinscope {

// The file name without its leading number and dashes and its extension.
inline std::string slug_of(std::string file) {
    if (const size_t dot = file.rfind('.'); dot != std::string::npos) file.erase(dot);
    size_t start = 0;
    while (start < file.size() &&
           (std::isdigit(static_cast<unsigned char>(file[start])) || file[start] == '-'))
        ++start;
    return file.substr(start);
}

inline std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace pinscope
