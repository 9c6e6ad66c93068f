#pragma once
// Writing a file so that it is either whole or not there: the text goes to a temporary file beside the
// target, which is flushed to disk and renamed over the target. A crash, a full disk, an exception in
// the writer or Ctrl-C leave the target as it was (a stale temporary at worst, never a half file).
#include <filesystem>
#include <functional>
#include <ostream>
#include <string_view>

namespace pinscope {

// Calls `write` with a stream to the temporary file, then syncs and renames it over `path`. Throws
// std::runtime_error that names `what` ("the trace", "the capture") and `path`; whatever `write` throws
// passes through. The temporary file is removed on every failure.
void write_file_atomically(const std::filesystem::path& path, const char* what,
                           const std::function<void(std::ostream&)>& write);
// The same for a text that is ready.
void write_file_atomically(const std::filesystem::path& path, const char* what, std::string_view text);

}  // namespace pinscope
