#pragma once
// Writing a large JSON array of events without building it in memory: events are formatted into one
// buffer that goes to the stream in large pieces. Also the exact microsecond format of Chrome traces.
#include <ostream>

#include <fmt/format.h>

#include "core/trace/clock.h"

namespace pinscope {

// A time in nanoseconds that formats as microseconds with three exact decimals: 1234567 -> "1234.567".
// Integer arithmetic, so no nanosecond is lost to double rounding however long the trace.
struct Micros {
    TimeNs ns = 0;
};

class EventStream {
  public:
    explicit EventStream(std::ostream& out) : out_(out) {}
    EventStream(const EventStream&) = delete;
    EventStream& operator=(const EventStream&) = delete;
    ~EventStream() { flush(); }

    // Text outside the event list (the opening and closing of the document).
    void raw(std::string_view text) { buffer_.append(text.data(), text.data() + text.size()); }

    // Starts the next element of the event list (one per line) and returns where to format it.
    fmt::memory_buffer& next_event() {
        if (buffer_.size() > kFlushBytes) flush();
        if (events_++ > 0) buffer_.push_back(',');
        buffer_.push_back('\n');
        return buffer_;
    }

    void flush() {
        out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
        buffer_.clear();
    }

  private:
    static constexpr size_t kFlushBytes = 1 << 16;
    std::ostream& out_;
    fmt::memory_buffer buffer_;
    size_t events_ = 0;
};

}  // namespace pinscope

template <>
struct fmt::formatter<pinscope::Micros> : fmt::formatter<std::string_view> {
    template <class FormatContext>
    auto format(pinscope::Micros time, FormatContext& ctx) const {
        const bool negative = time.ns < 0;
        const uint64_t magnitude =
            negative ? 0 - static_cast<uint64_t>(time.ns) : static_cast<uint64_t>(time.ns);
        return fmt::format_to(ctx.out(), "{}{}.{:03}", negative ? "-" : "", magnitude / 1000,
                              magnitude % 1000);
    }
};
