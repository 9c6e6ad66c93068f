#pragma once
// A file mapped read-only into memory: its bytes are read from the disk as they are touched, so a reader
// that skips most of a big file (a capture opened for one time range) never reads what it skips, and the
// pages it read can be dropped by the kernel under pressure rather than swapped.
#include <cstddef>
#include <cstdint>
#include <filesystem>

namespace pinscope {

class MappedFile {
  public:
    // Throws InputFileError (core/files/input_file.h) for a file that cannot be opened or mapped, a folder,
    // or an empty file, with the system's reason.
    explicit MappedFile(const std::filesystem::path& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const uint8_t* data() const { return data_; }
    size_t size() const { return size_; }

  private:
    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace pinscope
