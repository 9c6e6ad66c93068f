#pragma once
// Writing a file so that it is either whole or not there, under the output policy of output_file.h (links
// followed, devices and FIFOs streamed, anything else refused, temporaries never left behind). For a
// writer whose path was not checked before its work; commands check theirs first and write through the
// OutputFile they made then.
#include <filesystem>
#include <functional>
#include <ostream>
#include <string_view>

#include "core/files/output_file.h"

namespace pinscope {

// Calls `write` with a stream to the temporary file, then syncs and renames it over `path`. Throws
// OutputPathError for a path that cannot be written, std::runtime_error that names `what` ("the trace",
// "the capture") and `path` when writing fails; whatever `write` throws passes through. The target is
// untouched and the temporary removed on every failure.
void write_file_atomically(const std::filesystem::path& path, const char* what,
                           const std::function<void(std::ostream&)>& write);
// The same for a text that is ready.
void write_file_atomically(const std::filesystem::path& path, const char* what, std::string_view text);

}  // namespace pinscope
