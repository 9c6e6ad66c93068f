#include "core/files/output_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "core/files/fd_stream.h"
#include "core/files/temporary_files.h"

namespace pinscope {
namespace {

constexpr int kMaxLinkHops = 40;  // as the kernel's own limit (ELOOP)

std::string error_text(int error) {
    return std::strerror(error);
}

FileIdentity identity_of(const struct stat& st) {
    return FileIdentity{st.st_dev, st.st_ino};
}

// What a path is, in the words of a message that refuses it.
const char* type_name(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISBLK(mode)) return "a block device";
    return "not a regular file";
}

// The path a chain of symbolic links ends at (which need not exist yet: a dangling link names the file
// to create). Relative links are relative to the folder of the link.
std::filesystem::path follow_links(const std::filesystem::path& path) {
    std::filesystem::path at = path;
    for (int hop = 0; hop < kMaxLinkHops; ++hop) {
        struct stat st;
        if (::lstat(at.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return at;
        std::error_code error;
        const std::filesystem::path link = std::filesystem::read_symlink(at, error);
        if (error) throw OutputPathError(path, "cannot read the symbolic link: " + error.message());
        at = link.is_absolute() ? link : at.parent_path() / link;
    }
    throw OutputPathError(path, "too many levels of symbolic links");
}

// The standard descriptor (1 or 2) that `st` is the file of, or -1.
int standard_descriptor_of(const struct stat& st) {
    for (int fd : {STDOUT_FILENO, STDERR_FILENO}) {
        struct stat open;
        if (::fstat(fd, &open) == 0 && open.st_dev == st.st_dev && open.st_ino == st.st_ino) return fd;
    }
    return -1;
}

// ".NAME.tmp" + "PID-SERIAL": hidden, and unique per process and call, so two writers of one target
// never share a temporary.
std::string temporary_prefix(const std::filesystem::path& target) {
    return fmt::format(".{}.tmp", target.filename().string());
}

bool process_is_gone(pid_t pid) {
    return pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH;
}

// Removes the temporaries of `target` whose writer is no longer running: what a pinscope killed with
// SIGKILL (which no handler sees) leaves.
void remove_stale_temporaries(const std::filesystem::path& target) {
    const std::string prefix = temporary_prefix(target);
    const std::filesystem::path folder = target.parent_path().empty() ? "." : target.parent_path();
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
        const std::string name = entry.path().filename().string();
        if (!name.starts_with(prefix)) continue;
        const std::string_view rest = std::string_view(name).substr(prefix.size());
        pid_t pid = 0;
        const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
        if (ec != std::errc{} || end == rest.data() + rest.size() || *end != '-') continue;
        if (pid != ::getpid() && process_is_gone(pid)) std::filesystem::remove(entry.path(), error);
    }
}

// Holds SIGPIPE back on this thread while it writes a stream, so that a reader who leaves makes write()
// fail with EPIPE, which is reported, rather than ending the process without a word. A SIGPIPE raised
// meanwhile is taken back before the mask is restored (the classic pattern for libraries that write to
// pipes they do not own).
class SigpipeHeld {
  public:
    SigpipeHeld() {
        sigemptyset(&pipe_);
        sigaddset(&pipe_, SIGPIPE);
        sigset_t pending;
        sigpending(&pending);
        was_pending_ = sigismember(&pending, SIGPIPE) == 1;
        pthread_sigmask(SIG_BLOCK, &pipe_, &previous_);
    }
    ~SigpipeHeld() {
        if (!was_pending_) {
            const timespec none{0, 0};
            while (sigtimedwait(&pipe_, nullptr, &none) > 0) {
            }
        }
        pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
    }
    SigpipeHeld(const SigpipeHeld&) = delete;
    SigpipeHeld& operator=(const SigpipeHeld&) = delete;

  private:
    sigset_t pipe_, previous_;
    bool was_pending_ = false;
};

bool sync_folder(const std::filesystem::path& folder) {
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = ::fsync(fd) == 0;
    ::close(fd);
    return ok;
}

}  // namespace

OutputPathError::OutputPathError(const std::filesystem::path& path, const std::string& problem,
                                 const std::string& label)
    : std::runtime_error(label.empty()  ? fmt::format("{}: {}", path.string(), problem)
                         : path.empty() ? fmt::format("{}: {}", label, problem)
                                        : fmt::format("{} {}: {}", label, path.string(), problem)),
      path_(path),
      problem_(problem) {}

FileIdentity identify_file(const std::filesystem::path& path) {
    struct stat st;
    if (path.empty() || ::stat(path.c_str(), &st) != 0) return {};
    return identity_of(st);
}

//------------------------------------------------------------------------------------------------------------
// Checking, before the work
//------------------------------------------------------------------------------------------------------------

OutputFile::OutputFile(const std::filesystem::path& path, std::string what) : what_(std::move(what)) {
    if (path.empty()) throw OutputPathError(path, "no file name was given; name the file to write");
    struct stat st;
    // stat() follows every link, /proc's magic ones (/dev/stdout) too, which follow_links cannot.
    if (::stat(path.c_str(), &st) == 0) {
        existing_ = identity_of(st);
        if (S_ISDIR(st.st_mode)) throw OutputPathError(path, "is a folder; name a file inside it");
        if (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
            standard_fd_ = standard_descriptor_of(st);
        if (standard_fd_ >= 0 || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
            kind_ = Kind::stream;
            fifo_ = standard_fd_ < 0 && S_ISFIFO(st.st_mode);
            if (standard_fd_ < 0 && ::access(path.c_str(), W_OK) != 0)
                throw OutputPathError(path, "cannot write to it: " + error_text(errno));
            path_ = target_ = path;
            return;
        }
        if (!S_ISREG(st.st_mode))
            throw OutputPathError(path, fmt::format("is {}; pinscope writes regular files, character devices "
                                                    "(such as /dev/null) and FIFOs",
                                                    type_name(st.st_mode)));
        replaces_ = true;
        keep_mode_ = st.st_mode & 07777;
        keep_uid_ = st.st_uid;
        keep_gid_ = st.st_gid;
    } else if (errno != ENOENT) {
        throw OutputPathError(path, "cannot write there: " + error_text(errno));
    }
    target_ = follow_links(path);
    path_ = path;
    ready_temporary();
}

// The temporary is created now, beside the target: creating it is the one test of "can a file be
// written here" that holds for root too (access() says yes to root in /proc).
void OutputFile::ready_temporary() {
    const std::filesystem::path folder = target_.parent_path().empty() ? "." : target_.parent_path();
    struct stat st;
    if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw OutputPathError(path_, fmt::format("the folder {} does not exist", folder.string()));
    remove_stale_temporaries(target_);
    static std::atomic<unsigned> serial{0};
    temporary_ = folder / fmt::format("{}{}-{}", temporary_prefix(target_), ::getpid(), serial++);
    // Registered before it exists: a signal between creating and registering would leave it behind
    // (CI's ASan build was killed in that window). Unlinking a name not yet created is harmless, and the
    // name is this process's own (PID and serial), so it never names another writer's file.
    temporary_slot_ = register_temporary(temporary_);
    temporary_fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (temporary_fd_ < 0) {
        const int error = errno;
        forget_temporary(std::exchange(temporary_slot_, -1));
        temporary_.clear();
        throw OutputPathError(
            path_, fmt::format("cannot create a file in {}: {}; the folder must be writable", folder.string(),
                               error_text(error)));
    }
}

OutputFile::OutputFile(OutputFile&& other) noexcept {
    *this = std::move(other);
}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
    if (this == &other) return *this;
    discard();
    path_ = std::exchange(other.path_, {});
    target_ = std::exchange(other.target_, {});
    temporary_ = std::exchange(other.temporary_, {});
    what_ = std::exchange(other.what_, {});
    kind_ = other.kind_;
    fifo_ = other.fifo_;
    written_ = other.written_;
    temporary_fd_ = std::exchange(other.temporary_fd_, -1);
    temporary_slot_ = std::exchange(other.temporary_slot_, -1);
    standard_fd_ = std::exchange(other.standard_fd_, -1);
    existing_ = other.existing_;
    replaces_ = other.replaces_;
    keep_mode_ = other.keep_mode_;
    keep_uid_ = other.keep_uid_;
    keep_gid_ = other.keep_gid_;
    return *this;
}

OutputFile::~OutputFile() {
    discard();
}

void OutputFile::discard() noexcept {
    if (temporary_fd_ >= 0) ::close(std::exchange(temporary_fd_, -1));
    if (!temporary_.empty()) ::unlink(temporary_.c_str());
    temporary_.clear();
    forget_temporary(std::exchange(temporary_slot_, -1));
}

//------------------------------------------------------------------------------------------------------------
// Writing, after the work
//------------------------------------------------------------------------------------------------------------

void OutputFile::write(std::string_view text) {
    write([text](std::ostream& out) { out.write(text.data(), static_cast<std::streamsize>(text.size())); });
}

void OutputFile::write(const std::function<void(std::ostream&)>& write) {
    if (written_ || !*this)
        throw std::logic_error("OutputFile::write: nothing to write to, or written already");
    if (kind_ == Kind::file)
        write_file(write);
    else
        write_stream(write);
    written_ = true;
}

void OutputFile::write_file(const std::function<void(std::ostream&)>& write) {
    struct Discard {
        OutputFile& file;
        bool armed = true;
        ~Discard() {
            if (armed) file.discard();
        }
    } on_failure{*this};
    {
        FdStreamBuf buffer(temporary_fd_);
        std::ostream out(&buffer);
        write(out);
        out.flush();
        if (!out || buffer.error())
            throw std::runtime_error(
                fmt::format("writing {} to {} failed: {} (is the disk full?); nothing was written.", what_,
                            path_.string(), error_text(buffer.error() ? buffer.error() : EIO)));
    }
    if (replaces_) {
        ::fchmod(temporary_fd_, keep_mode_);
        if (::geteuid() == 0 && ::fchown(temporary_fd_, keep_uid_, keep_gid_) != 0) {
            // best effort: the file then belongs to root, with the permissions it had
        }
    }
    if (::fsync(temporary_fd_) != 0)
        throw std::runtime_error(fmt::format("cannot flush {} to disk at {}: {}; nothing was written.", what_,
                                             path_.string(), error_text(errno)));
    ::close(std::exchange(temporary_fd_, -1));
    if (::rename(temporary_.c_str(), target_.c_str()) != 0)
        throw std::runtime_error(
            fmt::format("cannot replace {}: {}; nothing was written.", target_.string(), error_text(errno)));
    on_failure.armed = false;
    temporary_.clear();
    forget_temporary(std::exchange(temporary_slot_, -1));
    sync_folder(target_.parent_path().empty() ? "." : target_.parent_path());  // the rename itself
}

// Opens the device or FIFO for writing. A FIFO's open waits for a reader; it is polled, so that a stop
// (Ctrl-C, SIGTERM) ends the wait rather than leaving the process blocked in open() for good.
int OutputFile::open_stream() const {
    if (standard_fd_ >= 0) return standard_fd_;
    for (;;) {
        const int fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC | (fifo_ ? O_NONBLOCK : 0));
        if (fd >= 0) {
            if (fifo_) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
            return fd;
        }
        if (!fifo_ || errno != ENXIO)
            throw std::runtime_error(
                fmt::format("cannot open {} to write {}: {}.", path_.string(), what_, error_text(errno)));
        if (stop_signal() != 0)
            throw std::runtime_error(
                fmt::format("no reader opened the FIFO {} before pinscope was told to "
                            "stop; {} was not written.",
                            path_.string(), what_));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

void OutputFile::write_stream(const std::function<void(std::ostream&)>& write) {
    if (standard_fd_ >= 0) {  // what the process printed before goes first
        std::cout.flush();
        std::cerr.flush();
        std::fflush(nullptr);
    }
    const int fd = open_stream();
    const SigpipeHeld no_silent_death;
    struct Close {
        int fd;
        bool owned;
        ~Close() {
            if (owned) ::close(fd);
        }
    } close_it{fd, fd != standard_fd_};
    FdStreamBuf buffer(fd);
    std::ostream out(&buffer);
    write(out);
    out.flush();
    if (!out || buffer.error()) {
        const int error = buffer.error() ? buffer.error() : EIO;
        throw std::runtime_error(fmt::format("writing {} to {} failed: {}{}.", what_, path_.string(),
                                             error_text(error),
                                             error == EPIPE ? " (its reader closed it before the end)" : ""));
    }
}

}  // namespace pinscope
