#include "core/io/kineto/trace_json_splitter.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/io/capture.h"

namespace pinscope {

namespace {

constexpr size_t kNotYet = static_cast<size_t>(-1);  // the value runs past the bytes read so far
constexpr size_t kFirstBuffer = 8u << 20;
constexpr size_t kSmallestBuffer = 64u << 10;
// No single value (an event, deviceProperties) of a real trace comes near this; a file that has one is
// refused rather than read into memory whole.
constexpr size_t kLargestValue = 256u << 20;
constexpr size_t kChunkBytes = 2u << 20;  // events handed to the parser at a time
constexpr size_t kPadding = 64;           // simdjson's SIMDJSON_PADDING

bool is_space(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// p[at] is '"': the index just past the closing quote, or kNotYet. memchr finds quotes fast; a quote
// preceded by an odd number of backslashes is escaped and does not close.
size_t string_end(const char* p, size_t n, size_t at) {
    size_t from = at + 1;
    for (;;) {
        const void* q = from < n ? std::memchr(p + from, '"', n - from) : nullptr;
        if (!q) return kNotYet;
        const size_t quote = static_cast<size_t>(static_cast<const char*>(q) - p);
        size_t backslashes = 0;
        while (quote - backslashes > at + 1 && p[quote - 1 - backslashes] == '\\') ++backslashes;
        if (backslashes % 2 == 0) return quote + 1;
        from = quote + 1;
    }
}

// The index of the first of " { } [ ] in p[i, n), or n. Outside strings a trace's JSON is mostly the
// indentation of pretty-printed events: sixteen bytes at a time skips it (SSE2, every x86-64 has it).
size_t next_structural(const char* p, size_t n, size_t i) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), open_brace = _mm_set1_epi8('{'),
                  close_brace = _mm_set1_epi8('}'), open_bracket = _mm_set1_epi8('['),
                  close_bracket = _mm_set1_epi8(']');
    for (; i + 16 <= n; i += 16) {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
        const __m128i hits = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, open_brace)),
            _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(bytes, close_brace), _mm_cmpeq_epi8(bytes, open_bracket)),
                _mm_cmpeq_epi8(bytes, close_bracket)));
        if (const int mask = _mm_movemask_epi8(hits))
            return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    }
#endif
    for (; i < n; ++i) {
        const char c = p[i];
        if (c == '"' || c == '{' || c == '}' || c == '[' || c == ']') return i;
    }
    return n;
}

// p[0] is '{' or '[': the length of the object or array, or kNotYet.
size_t compound_length(const char* p, size_t n) {
    int depth = 0;
    for (size_t i = 0; i < n;) {
        i = next_structural(p, n, i);
        if (i == n) break;
        const char c = p[i];
        if (c == '"') {
            i = string_end(p, n, i);
            if (i == kNotYet) return kNotYet;
            continue;
        }
        if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) return i + 1;
        }
        ++i;
    }
    return kNotYet;
}

class Splitter {
  public:
    Splitter(TraceBytes& bytes, const TraceJsonParts& parts) : bytes_(bytes), parts_(parts) {
        // A small file gets a small buffer (it grows on demand): a megabyte trace need not touch 8 MB.
        const uint64_t expected = bytes.gzipped() ? bytes.file_bytes() * 8 : bytes.file_bytes();
        buffer_.resize(
            static_cast<size_t>(std::clamp<uint64_t>(expected + 1, kSmallestBuffer, kFirstBuffer)));
    }

    SplitOutcome run() {
        int c = next_char();
        if (c == 0xEF && end_ - begin_ >= 3 && std::memcmp(&buffer_[begin_], "\xEF\xBB\xBF", 3) == 0) {
            begin_ += 3;  // a UTF-8 byte order mark
            c = next_char();
        }
        if (c == '[') {
            ++begin_;
            outcome_.found_events = true;
            event_array();
        } else if (c == '{') {
            ++begin_;
            object();
        } else {
            throw CaptureError("is not a pinscope capture, nor a PyTorch profiler trace (JSON)");
        }
        return outcome_;
    }

  private:
    // The next character that is not white space, read as far as needed; -1 at the end of the text.
    int next_char() {
        for (;;) {
            while (begin_ < end_ && is_space(buffer_[begin_])) ++begin_;
            if (begin_ < end_) return static_cast<unsigned char>(buffer_[begin_]);
            if (!read_more()) return -1;
        }
    }

    // Moves what is unread to the front and appends what the file has next; false at its end.
    bool read_more() {
        if (ended_) return false;
        if (begin_ > 0) {
            std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
            end_ -= begin_;
            begin_ = 0;
        }
        if (end_ == buffer_.size()) {
            if (buffer_.size() >= kLargestValue) {
                outcome_.problem = "it holds a single JSON value larger than 256 MB";
                ended_ = true;
                return false;
            }
            buffer_.resize(buffer_.size() * 2);
        }
        const size_t got = bytes_.read(buffer_.data() + end_, buffer_.size() - end_);
        if (got == 0) {
            ended_ = true;
            return false;
        }
        end_ += got;
        return true;
    }

    // The length of the whole value at begin_, reading as far as it takes; kNotYet when the text ends
    // inside it.
    size_t value_length() {
        for (;;) {
            const char* p = buffer_.data() + begin_;
            const size_t n = end_ - begin_;
            size_t length = kNotYet;
            if (p[0] == '"') {
                const size_t end = string_end(p, n, 0);
                length = end;
            } else if (p[0] == '{' || p[0] == '[') {
                length = compound_length(p, n);
            } else {
                // A number or a literal; a stray '}' or ']' where a value belongs is one byte of junk,
                // consumed so that the scan always moves on.
                size_t i = 1;
                while (i < n && !is_space(p[i]) && p[i] != ',' && p[i] != '}' && p[i] != ']') ++i;
                if (i < n || ended_) length = i;
            }
            if (length != kNotYet) return length;
            if (!read_more()) return kNotYet;
        }
    }

    void object() {
        for (;;) {
            int c = next_char();
            if (c == -1) return truncated();
            if (c == '}') {
                ++begin_;
                return;
            }
            if (c == ',') {
                ++begin_;
                continue;
            }
            if (c != '"') return not_json();
            const size_t key_length = value_length();
            if (key_length == kNotYet) return truncated();
            const std::string key(&buffer_[begin_ + 1], key_length - 2);
            begin_ += key_length;
            if (next_char() != ':') return not_json();
            ++begin_;
            c = next_char();
            if (c == -1) return truncated();
            if (key == "traceEvents" && c == '[') {
                ++begin_;
                outcome_.found_events = true;
                if (!event_array()) return;
                continue;
            }
            const size_t length = value_length();
            if (length == kNotYet) return truncated();
            if (parts_.top_level_value)
                parts_.top_level_value(key, std::string_view(&buffer_[begin_], length));
            begin_ += length;
        }
    }

    // After the array's '['. False when the split must stop (the text ended, or a cancel).
    bool event_array() {
        start_chunk();
        for (;;) {
            const int c = next_char();
            if (c == -1) {
                hand_over_chunk();
                truncated();
                return false;
            }
            if (c == ']') {
                ++begin_;
                return hand_over_chunk();
            }
            if (c == ',') {
                ++begin_;
                continue;
            }
            const size_t length = value_length();
            if (length == kNotYet) {
                hand_over_chunk();
                truncated();
                return false;
            }
            if (c == '{') {
                if (!chunk_.offsets.empty()) chunk_.text.push_back(',');
                chunk_.offsets.push_back(static_cast<uint32_t>(chunk_.text.size()));
                chunk_.text.append(&buffer_[begin_], length);
                chunk_.ends.push_back(static_cast<uint32_t>(chunk_.text.size()));
            } else {
                ++outcome_.non_objects;
            }
            begin_ += length;
            if (chunk_.text.size() >= kChunkBytes && !hand_over_chunk()) return false;
        }
    }

    void start_chunk() {
        chunk_.text.assign(1, '[');
        chunk_.json_size = 0;
        chunk_.offsets.clear();
        chunk_.ends.clear();
    }

    bool hand_over_chunk() {
        if (!chunk_.offsets.empty() && parts_.events) {
            chunk_.text.push_back(']');
            chunk_.json_size = chunk_.text.size();
            chunk_.text.append(kPadding, '\0');
            parts_.events(chunk_);
        }
        start_chunk();
        if (parts_.keep_going && !parts_.keep_going()) {
            outcome_.cancelled = true;
            ended_ = true;
            return false;
        }
        return true;
    }

    void truncated() {
        if (outcome_.problem.empty()) outcome_.truncated = true;
    }
    void not_json() {
        if (outcome_.problem.empty()) outcome_.problem = "it is not well-formed JSON";
    }

    TraceBytes& bytes_;
    const TraceJsonParts& parts_;
    std::vector<char> buffer_;
    size_t begin_ = 0, end_ = 0;
    bool ended_ = false;
    EventChunk chunk_;
    SplitOutcome outcome_;
};

}  // namespace

SplitOutcome split_trace_json(TraceBytes& bytes, const TraceJsonParts& parts) {
    return Splitter(bytes, parts).run();
}

}  // namespace pinscope
