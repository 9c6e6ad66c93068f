#include "core/files/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace pinscope {
namespace {

// Flushes a file's (or a folder's) contents to disk; false if the system refused.
bool sync_to_disk(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = ::fsync(fd) == 0;
    ::close(fd);
    return ok;
}

// Removes the temporary file unless it was renamed into place.
class TemporaryFile {
  public:
    explicit TemporaryFile(std::filesystem::path path) : path_(std::move(path)) {}
    ~TemporaryFile() {
        if (path_.empty()) return;
        std::error_code ignored;
        std::filesystem::remove(path_, ignored);
    }
    const std::filesystem::path& path() const { return path_; }
    void release() { path_.clear(); }

  private:
    std::filesystem::path path_;
};

}  // namespace

void write_file_atomically(const std::filesystem::path& path, const char* what,
                           const std::function<void(std::ostream&)>& write) {
    const std::filesystem::path folder = path.parent_path().empty() ? "." : path.parent_path();
    // Hidden, and unique per process and call, so two writers of one target never share a temporary.
    static std::atomic<unsigned> serial{0};
    TemporaryFile temporary(folder /
                            fmt::format(".{}.tmp{}-{}", path.filename().string(), ::getpid(), serial++));
    {
        std::ofstream out(temporary.path(), std::ios::binary | std::ios::trunc);
        if (!out)
            throw std::runtime_error(
                fmt::format("cannot write {} to {}: {}. Check that the folder exists and is writable.", what,
                            path.string(), std::strerror(errno)));
        write(out);
        out.close();
        if (!out)
            throw std::runtime_error(fmt::format(
                "writing {} to {} failed (is the disk full?); nothing was written.", what, path.string()));
    }
    if (!sync_to_disk(temporary.path()))
        throw std::runtime_error(fmt::format("cannot flush {} to disk at {}: {}; nothing was written.", what,
                                             path.string(), std::strerror(errno)));
    std::error_code error;
    std::filesystem::rename(temporary.path(), path, error);
    if (error)
        throw std::runtime_error(fmt::format("cannot replace {}: {}.", path.string(), error.message()));
    temporary.release();
    sync_to_disk(folder);  // the rename itself; a folder that cannot be synced still holds the new file
}

void write_file_atomically(const std::filesystem::path& path, const char* what, std::string_view text) {
    write_file_atomically(path, what, [text](std::ostream& out) {
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
    });
}

}  // namespace pinscope
