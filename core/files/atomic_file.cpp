#include "core/files/atomic_file.h"

namespace pinscope {

void write_file_atomically(const std::filesystem::path& path, const char* what,
                           const std::function<void(std::ostream&)>& write) {
    OutputFile(path, what).write(write);
}

void write_file_atomically(const std::filesystem::path& path, const char* what, std::string_view text) {
    OutputFile(path, what).write(text);
}

}  // namespace pinscope
