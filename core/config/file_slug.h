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

// Whether `name` names the item of file `file`: its slug or its file stem ("03-loading-bound"), any case.
inline bool names_file(std::string_view name, const std::string& file) {
    const std::string wanted = lower(name);
    return lower(slug_of(file)) == wanted || lower(file.substr(0, file.rfind('.'))) == wanted;
}

// The first of `items` (each with a `file`) that `name` names, or that `also(item, lowered name)` accepts;
// nullptr if none.
template <class Items, class Also>
auto find_by_file_name(const Items& items, std::string_view name, Also&& also) -> decltype(&*items.begin()) {
    const std::string wanted = lower(name);
    for (const auto& item : items)
        if (names_file(name, item.file) || also(item, wanted)) return &item;
    return nullptr;
}

// "pytorch-defaults, tuned-loader, ...": the slugs of `items` (each with a `slug`), for messages and --help.
template <class Items>
std::string slug_list(const Items& items) {
    std::string all;
    for (const auto& item : items) all += (all.empty() ? "" : ", ") + item.slug;
    return all;
}

}  // namespace pinscope
