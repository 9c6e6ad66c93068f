#pragma once
// Where pinscope writes, and how: the one output policy of every writer (captures, traces, CSV,
// pictures, configs, calibrations, sweep tables, screenshots, the app's Save and Export). An OutputFile
// is made before any work starts, so a place that cannot be written fails at once; write() comes last.
//
// - A symbolic link is followed: its target is what gets written.
// - A regular file, or a new one, is replaced atomically: the bytes go to a temporary beside the target
//   (created when the OutputFile is made, so /proc or a read-only folder fails now, even as root), which
//   is flushed to disk and renamed over the target with the target's permissions. A failure, an
//   exception or a signal leaves the target as it was and the temporary removed.
// - A character device or a FIFO (/dev/null, a named pipe, /dev/stdout on a terminal or a pipe) is
//   written in place as a stream: there is nothing to replace, and a reader may be waiting on it. A path
//   that names this process's own standard output or error is written through that descriptor.
// - Anything else (a folder, a socket, a block device) is refused.
// - A temporary that a killed pinscope left beside the target (its process is gone) is removed.
#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pinscope {

// A path that cannot be written as asked. what() is "LABEL PATH: problem" ("--capture /proc/x: cannot
// ..."), or "PATH: problem" without a label; bad input rather than a failure, so the command line exits 2
// with it and the app shows it.
class OutputPathError : public std::runtime_error {
  public:
    OutputPathError(const std::filesystem::path& path, const std::string& problem,
                    const std::string& label = {});
    const std::filesystem::path& path() const { return path_; }
    const std::string& problem() const { return problem_; }
    // The same problem, said of the option or field that named the path.
    OutputPathError labelled(const std::string& label) const {
        return OutputPathError(path_, problem_, label);
    }

  private:
    std::filesystem::path path_;
    std::string problem_;
};

// Which file a path names once links are followed: two names of one file compare equal.
struct FileIdentity {
    dev_t device = 0;
    ino_t inode = 0;
    bool exists() const { return device != 0 || inode != 0; }
    bool operator==(const FileIdentity&) const = default;
};
// The file at `path`, or an identity that does not exist.
FileIdentity identify_file(const std::filesystem::path& path);

class OutputFile {
  public:
    enum class Kind {
        file,    // replaced atomically through a temporary
        stream,  // a character device or FIFO, written in place
    };

    OutputFile() = default;
    // Checks `path` and readies it for `what` ("the capture", "the trace"). Throws OutputPathError.
    OutputFile(const std::filesystem::path& path, std::string what);
    OutputFile(OutputFile&& other) noexcept;
    OutputFile& operator=(OutputFile&& other) noexcept;
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    ~OutputFile();  // removes the temporary unless the file was written

    explicit operator bool() const { return !path_.empty(); }
    const std::filesystem::path& path() const { return path_; }      // as it was named
    const std::filesystem::path& target() const { return target_; }  // links followed
    const std::string& what() const { return what_; }
    Kind kind() const { return kind_; }
    // A FIFO: write() waits until a reader opens it (or the process is told to stop).
    bool waits_for_reader() const { return fifo_; }
    // This process's standard output: the caller should print its own report elsewhere.
    bool is_standard_output() const { return standard_fd_ == 1; }
    // The file there now, before anything is written; does not exist for a new file.
    const FileIdentity& existing() const { return existing_; }
    bool written() const { return written_; }

    // Writes it, once. Throws std::runtime_error naming the path when the bytes cannot be written (the
    // disk is full, a FIFO's reader left); a regular file is then as it was. Whatever `write` throws
    // passes through, with the same effect.
    void write(const std::function<void(std::ostream&)>& write);
    void write(std::string_view text);

  private:
    void ready_temporary();
    void write_file(const std::function<void(std::ostream&)>& write);
    void write_stream(const std::function<void(std::ostream&)>& write);
    int open_stream() const;
    void discard() noexcept;  // closes and removes the temporary

    std::filesystem::path path_, target_, temporary_;
    std::string what_;
    Kind kind_ = Kind::file;
    bool fifo_ = false;
    bool written_ = false;
    int temporary_fd_ = -1;
    int temporary_slot_ = -1;  // in the signal handlers' list (temporary_files.h)
    int standard_fd_ = -1;     // 1 or 2 when the path is this process's stdout or stderr
    FileIdentity existing_;
    bool replaces_ = false;  // a regular file is there: keep its permissions (and owner, as root)
    mode_t keep_mode_ = 0;
    uid_t keep_uid_ = 0;
    gid_t keep_gid_ = 0;
};

}  // namespace pinscope
