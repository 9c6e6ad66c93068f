// WrittenAhead (core/model/written_ahead.h): the host rates' writer that stays ahead of its reader. Each
// buffer the reader gets is the next one written, whole, and stays as written while the reader holds it,
// however far ahead the writer runs. The TSan build runs it too (Makefile, test-tsan).
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <thread>

#include <doctest/doctest.h>

#include "core/model/written_ahead.h"

namespace pinscope {
namespace {

std::byte mark(size_t n) {
    return static_cast<std::byte>(1 + n % 251);
}

bool all_marked(std::span<const std::byte> buffer, size_t n) {
    return std::all_of(buffer.begin(), buffer.end(), [&](std::byte b) { return b == mark(n); });
}

TEST_CASE("written ahead: the reader gets every buffer in order, whole, and the writer leaves it alone") {
    constexpr size_t kBytes = 64 << 10;
    constexpr size_t kHandOvers = 200;
    WrittenAhead ahead(kBytes, [](std::span<std::byte> buffer, size_t n) {
        std::fill(buffer.begin(), buffer.end(), mark(n));
    });
    for (size_t n = 0; n < kHandOvers; ++n) {
        CHECK_MESSAGE(all_marked(ahead.current(), n), "buffer ", n, " as the reader got it");
        // Now and then hold it while the writer fills every other buffer it may: it must not touch this one.
        if (n % 50 == 7) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            CHECK_MESSAGE(all_marked(ahead.current(), n), "buffer ", n, " after the writer ran ahead");
        }
        ahead.next();
    }
}

TEST_CASE("written ahead: a reader that stops early stops the writer with it") {
    size_t written = 0;
    {
        WrittenAhead ahead(16, [&written](std::span<std::byte>, size_t) { ++written; });
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // The first buffer was handed over and never given back, so the writer could fill the other two and
    // no more; the destructor joined it, so its count is safe to read.
    CHECK(written == WrittenAhead::kBuffers);
}

}  // namespace
}  // namespace pinscope
