#pragma once
// An std::ostream over a file descriptor that the caller owns: what OutputFile writes a temporary file,
// a FIFO, a device or this process's standard output through. Writes go out whole (short writes and
// EINTR are retried); a failure sets the stream's badbit and keeps errno in error().
#include <unistd.h>

#include <cerrno>
#include <ostream>
#include <streambuf>
#include <vector>

namespace pinscope {

class FdStreamBuf : public std::streambuf {
  public:
    explicit FdStreamBuf(int fd, size_t buffer_bytes = 1 << 16) : fd_(fd), buffer_(buffer_bytes) {
        setp(buffer_.data(), buffer_.data() + buffer_.size());
    }
    ~FdStreamBuf() override { sync(); }
    FdStreamBuf(const FdStreamBuf&) = delete;
    FdStreamBuf& operator=(const FdStreamBuf&) = delete;

    int error() const { return error_; }

  protected:
    int_type overflow(int_type c) override {
        if (!flush_buffer()) return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return flush_buffer() ? 0 : -1; }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        // Large writes skip the buffer: a capture's sections are megabytes each.
        if (n >= static_cast<std::streamsize>(buffer_.size())) {
            if (!flush_buffer() || !write_all(s, static_cast<size_t>(n))) return 0;
            return n;
        }
        return std::streambuf::xsputn(s, n);
    }

  private:
    bool flush_buffer() {
        const size_t pending = static_cast<size_t>(pptr() - pbase());
        if (pending == 0) return error_ == 0;
        const bool ok = write_all(pbase(), pending);
        setp(buffer_.data(), buffer_.data() + buffer_.size());
        return ok;
    }
    bool write_all(const char* data, size_t bytes) {
        if (error_) return false;
        while (bytes > 0) {
            const ssize_t n = ::write(fd_, data, bytes);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                error_ = n < 0 ? errno : EIO;
                return false;
            }
            data += n;
            bytes -= static_cast<size_t>(n);
        }
        return true;
    }

    int fd_;
    std::vector<char> buffer_;
    int error_ = 0;
};

}  // namespace pinscope
