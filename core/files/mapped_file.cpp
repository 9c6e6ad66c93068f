#include "core/files/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/files/input_file.h"

namespace pinscope {

MappedFile::MappedFile(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputFileError(std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int error = errno;
        ::close(fd);
        throw InputFileError(std::strerror(error));
    }
    const char* problem = S_ISDIR(st.st_mode) ? "it is a folder, not a file"
                          : !S_ISREG(st.st_mode)
                              ? "it is not a regular file (a FIFO or a device cannot be mapped)"
                          : st.st_size == 0 ? "it is empty"
                                            : nullptr;
    if (problem) {
        ::close(fd);
        throw InputFileError(problem);
    }
    size_ = static_cast<size_t>(st.st_size);
    void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    const int error = errno;
    ::close(fd);  // the mapping keeps the file open
    if (mapped == MAP_FAILED) throw InputFileError(std::string("cannot be mapped: ") + std::strerror(error));
    data_ = static_cast<const uint8_t*>(mapped);
}

MappedFile::~MappedFile() {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace pinscope
