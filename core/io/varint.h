#pragma once
// The capture file's integers: LEB128 varints (7 bits a byte, low first) and zigzag for signed values,
// so small numbers (time deltas, durations, repeated batch ids) take a byte or two. The reader checks
// every byte against the end of its buffer: a truncated or hostile file is an error, never a read past.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pinscope::varint {

inline uint64_t zigzag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

inline int64_t unzigzag(uint64_t v) {
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

inline void put(std::vector<uint8_t>& out, uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<uint8_t>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<uint8_t>(v));
}

inline void put_signed(std::vector<uint8_t>& out, int64_t v) {
    put(out, zigzag(v));
}

// A malformed buffer: what was being read, and why it cannot be.
class FormatError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Reads what put() wrote from [data, data + size), never past it.
class Reader {
  public:
    Reader() = default;  // an empty buffer
    Reader(const uint8_t* data, size_t size) : at_(data), end_(data + size) {}

    uint64_t get(const char* what) {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (at_ == end_) throw FormatError(std::string(what) + " runs past the end of its section");
            const uint8_t byte = *at_++;
            v |= static_cast<uint64_t>(byte & 0x7F) << shift;
            if (!(byte & 0x80)) return v;
        }
        throw FormatError(std::string(what) + " is not a valid number (more than 64 bits)");
    }
    int64_t get_signed(const char* what) { return unzigzag(get(what)); }

    // A count of things each at least `min_bytes` long, checked against what is left.
    uint64_t get_count(const char* what, size_t min_bytes = 1) {
        const uint64_t n = get(what);
        if (min_bytes > 0 && n > left() / min_bytes)
            throw FormatError(std::string(what) + " says " + std::to_string(n) +
                              ", more than the section holds");
        return n;
    }

    // The next `n` bytes, as a reader of their own.
    Reader sub(uint64_t n, const char* what) {
        if (n > left()) throw FormatError(std::string(what) + " runs past the end of its section");
        Reader r(at_, static_cast<size_t>(n));
        at_ += n;
        return r;
    }
    uint8_t byte(const char* what) {
        if (at_ == end_) throw FormatError(std::string(what) + " runs past the end of its section");
        return *at_++;
    }
    double f64(const char* what) {
        if (left() < 8) throw FormatError(std::string(what) + " runs past the end of its section");
        double v;
        std::memcpy(&v, at_, 8);
        at_ += 8;
        return v;
    }
    std::string_view text(uint64_t n, const char* what) {
        Reader r = sub(n, what);
        return {reinterpret_cast<const char*>(r.at_), static_cast<size_t>(n)};
    }

    size_t left() const { return static_cast<size_t>(end_ - at_); }
    bool done() const { return at_ == end_; }

  private:
    const uint8_t* at_ = nullptr;
    const uint8_t* end_ = nullptr;
};

inline void put_f64(std::vector<uint8_t>& out, double v) {
    uint8_t bytes[8];
    std::memcpy(bytes, &v, 8);
    out.insert(out.end(), bytes, bytes + 8);
}

}  // namespace pinscope::varint
