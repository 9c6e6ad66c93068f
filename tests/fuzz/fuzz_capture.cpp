// Fuzzes the capture reader: any bytes either load as a capture whose metrics can be computed, or are a
// CaptureError. Anything else (a crash, a sanitizer report, another exception) is a bug in the reader.
//
// Sections are zstd frames with a checksum, so a flipped byte inside one almost never gets past the
// decompressor. Half of the mutations therefore open one section, mutate its inflated bytes and
// compress them again: those reach META's JSON and the string, span and counter columns.
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "core/io/capture.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

constexpr size_t kFileHeaderBytes = 16;     // "PINSCOPE" | u32 version | u32 0
constexpr size_t kSectionHeaderBytes = 24;  // u32 tag | u32 0 | u64 stored | u64 raw
constexpr uint64_t kMaxMutatedRaw = 1 << 20;

uint64_t get_le64(const uint8_t* at) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(at[i]) << (8 * i);
    return v;
}

void put_le64(uint8_t* at, uint64_t v) {
    for (int i = 0; i < 8; ++i) at[i] = static_cast<uint8_t>(v >> (8 * i));
}

// Where a section's header starts and how many compressed bytes follow it.
struct StoredSection {
    size_t at;
    uint64_t stored;
};

std::vector<StoredSection> sections_of(const uint8_t* data, size_t size) {
    std::vector<StoredSection> sections;
    size_t at = kFileHeaderBytes;
    while (size >= at && size - at >= kSectionHeaderBytes) {
        const uint64_t stored = get_le64(data + at + 8);
        if (stored > size - at - kSectionHeaderBytes) break;
        if (stored > 0) sections.push_back({at, stored});
        at += kSectionHeaderBytes + stored;
    }
    return sections;
}

// Mutates the inflated bytes of one section and writes it back compressed; 0 when the input has no
// section that inflates or the result does not fit in max_size.
size_t mutate_section(uint8_t* data, size_t size, size_t max_size, std::minstd_rand& random) {
    const std::vector<StoredSection> sections = sections_of(data, size);
    if (sections.empty()) return 0;
    const StoredSection s = sections[random() % sections.size()];
    const uint8_t* frame = data + s.at + kSectionHeaderBytes;
    const unsigned long long raw_size = ZSTD_getFrameContentSize(frame, s.stored);
    if (raw_size == ZSTD_CONTENTSIZE_ERROR || raw_size == ZSTD_CONTENTSIZE_UNKNOWN ||
        raw_size > kMaxMutatedRaw)
        return 0;
    std::vector<uint8_t> raw(2 * raw_size + 64);
    const size_t inflated = ZSTD_decompress(raw.data(), raw.size(), frame, s.stored);
    if (ZSTD_isError(inflated)) return 0;
    raw.resize(LLVMFuzzerMutate(raw.data(), inflated, raw.size()));

    std::vector<uint8_t> stored(ZSTD_compressBound(raw.size()));
    std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> ctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    ZSTD_CCtx_setParameter(ctx.get(), ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(ctx.get(), ZSTD_c_checksumFlag, 1);
    const size_t compressed = ZSTD_compress2(ctx.get(), stored.data(), stored.size(), raw.data(), raw.size());
    if (ZSTD_isError(compressed)) return 0;

    const size_t tail_at = s.at + kSectionHeaderBytes + s.stored;
    const size_t new_size = s.at + kSectionHeaderBytes + compressed + (size - tail_at);
    if (new_size > max_size) return 0;
    std::vector<uint8_t> tail(data + tail_at, data + size);
    put_le64(data + s.at + 8, compressed);
    put_le64(data + s.at + 16, raw.size());
    std::memcpy(data + s.at + kSectionHeaderBytes, stored.data(), compressed);
    if (!tail.empty()) std::memcpy(data + s.at + kSectionHeaderBytes + compressed, tail.data(), tail.size());
    return new_size;
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
    std::minstd_rand random(seed);
    if (random() % 2 == 0)
        if (const size_t mutated = mutate_section(data, size, max_size, random)) return mutated;
    return LLVMFuzzerMutate(data, size, max_size);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const pinscope::Capture capture = pinscope::load_capture_bytes(data, size, "fuzz.pinscope");
        // What `pinscope stats` does next: a capture that loads must be one the metrics can read.
        pinscope::capture_metrics(capture);
    } catch (const pinscope::CaptureError&) {
    }
    // And a range of it, as a viewer reads a capture too big for memory: the index and META found from
    // the END section, SPAN sections skipped by what the index says. The range comes from the input's
    // last byte, so the fuzzer moves it too.
    try {
        const double from = size ? data[size - 1] % 16 * 0.001 : 0;
        const pinscope::Capture part = pinscope::load_capture_bytes(
            data, size, "fuzz.pinscope", pinscope::CaptureRange{from, from + 0.002});
        pinscope::capture_metrics(part);
    } catch (const pinscope::CaptureError&) {
    }
    return 0;
}
