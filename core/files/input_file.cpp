#include "core/files/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace pinscope {

std::string read_input_file(const std::filesystem::path& path, size_t max_bytes) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputFileError(std::strerror(errno));
    struct Close {
        int fd;
        ~Close() { ::close(fd); }
    } close_it{fd};
    struct stat st;
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) throw InputFileError("it is a folder, not a file");
    std::string text;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw InputFileError(std::strerror(errno));
        if (n == 0) break;
        if (text.size() + static_cast<size_t>(n) > max_bytes)
            throw InputFileError(
                fmt::format("it is longer than {} KiB, more than such a file holds", max_bytes >> 10));
        text.append(buffer, static_cast<size_t>(n));
    }
    return text;
}

}  // namespace pinscope
