#pragma once
// Reading a file a user named (a config, a calibration, a font) whole, without reading forever: a FIFO
// or /dev/zero is read up to a bound, a folder is said to be one.
#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace pinscope {

// What is wrong, without the file's name: the caller says which file it was.
class InputFileError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// A file's bytes, at most `max_bytes` of them. Throws InputFileError ("No such file or directory", "it
// is a folder, not a file", "it is longer than 1024 KiB, ...") for a file that cannot be read whole.
std::string read_input_file(const std::filesystem::path& path, size_t max_bytes);

}  // namespace pinscope
