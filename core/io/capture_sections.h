#pragma once
// The capture file's container (core/io/capture.h describes the layout): the file header, sections of a
// tag and a zstd frame, and a reader that checks every length before it allocates. Internal to core/io.
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/io/capture.h"

namespace pinscope::capture_sections {

//------------------------------------------------------------------------------------------------------------
// [SECTION] The container: header, sections, zstd
//------------------------------------------------------------------------------------------------------------

inline constexpr char kMagic[8] = {'P', 'I', 'N', 'S', 'C', 'O', 'P', 'E'};
inline constexpr size_t kFileHeaderBytes = 16;
inline constexpr size_t kSectionHeaderBytes = 24;
// No section inflates beyond this: a corrupt size must not make the reader allocate the machine away.
// A full SPAN section takes at most kSpansPerSection * ~46 bytes, well under it.
inline constexpr uint64_t kMaxRawSectionBytes = 256ull << 20;
inline constexpr size_t kSpansPerSection = 1 << 20;
// Nor do the sections together inflate beyond this many times the file (plus a floor): a few hostile
// bytes can claim gigabytes of zeros, which real columns never compress to.
inline constexpr uint64_t kMaxInflation = 4096;
inline constexpr uint64_t kInflationFloorBytes = 64ull << 20;
inline constexpr int kZstdLevel = 3;  // fast to write, and the columns are what makes the file small

constexpr uint32_t tag(const char (&name)[5]) {
    return static_cast<uint32_t>(static_cast<uint8_t>(name[0])) |
           static_cast<uint32_t>(static_cast<uint8_t>(name[1])) << 8 |
           static_cast<uint32_t>(static_cast<uint8_t>(name[2])) << 16 |
           static_cast<uint32_t>(static_cast<uint8_t>(name[3])) << 24;
}
inline constexpr uint32_t kMeta = tag("META");
inline constexpr uint32_t kStrings = tag("STRS");
inline constexpr uint32_t kSpans = tag("SPAN");
inline constexpr uint32_t kCounters = tag("CNTR");
inline constexpr uint32_t kEnd = tag("END.");
inline constexpr uint32_t kCategories = tag("CATS");
inline constexpr uint32_t kFlows = tag("FLOW");
inline constexpr uint32_t kIndex = tag("INDX");

inline std::string tag_name(uint32_t t) {
    std::string name;
    for (int i = 0; i < 4; ++i) {
        const char c = static_cast<char>((t >> (8 * i)) & 0xFF);
        name += (c >= 32 && c < 127) ? c : '?';
    }
    return name;
}

inline void put_le(std::string& out, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

inline uint64_t get_le(const uint8_t* at, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(at[i]) << (8 * i);
    return v;
}

struct CompressContext {
    std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> ctx{ZSTD_createCCtx(), ZSTD_freeCCtx};
    CompressContext() {
        ZSTD_CCtx_setParameter(ctx.get(), ZSTD_c_compressionLevel, kZstdLevel);
        ZSTD_CCtx_setParameter(ctx.get(), ZSTD_c_checksumFlag, 1);
    }
};

inline std::string file_header_bytes(uint32_t version) {
    std::string header(kMagic, sizeof kMagic);
    put_le(header, version, 4);
    put_le(header, 0, 4);
    return header;
}

inline std::string section_header_bytes(uint32_t section_tag, uint64_t stored, uint64_t raw) {
    std::string header;
    put_le(header, section_tag, 4);
    put_le(header, 0, 4);
    put_le(header, stored, 8);
    put_le(header, raw, 8);
    return header;
}

// One section, header and zstd frame, ready to write.
inline std::string section_bytes(CompressContext& zstd, uint32_t section_tag, const void* raw,
                                 size_t raw_size) {
    std::string stored(ZSTD_compressBound(raw_size), '\0');
    const size_t size = ZSTD_compress2(zstd.ctx.get(), stored.data(), stored.size(), raw, raw_size);
    if (ZSTD_isError(size)) throw CaptureError(fmt::format("zstd: {}", ZSTD_getErrorName(size)));
    stored.resize(size);
    return section_header_bytes(section_tag, stored.size(), raw_size) + stored;
}

// One section as read: its tag and its inflated bytes.
struct Section {
    uint32_t tag = 0;
    std::vector<uint8_t> raw;
};

class SectionReader {
  public:
    SectionReader(const uint8_t* data, size_t size) : data_(data), size_(size) {
        if (size < sizeof kMagic || std::memcmp(data, kMagic, sizeof kMagic) != 0)
            throw CaptureError("not a pinscope capture (it does not start with \"PINSCOPE\")");
        if (size < kFileHeaderBytes) throw CaptureError("cut short inside the file header");
        const uint32_t version = static_cast<uint32_t>(get_le(data + 8, 4));
        if (version == 0) throw CaptureError("format version 0 is not a version any pinscope wrote");
        if (version > kCaptureFormatVersion)
            throw CaptureError(
                fmt::format("written by a newer pinscope (capture format {}; this one reads up to {}): "
                            "update pinscope to "
                            "open it",
                            version, kCaptureFormatVersion));
        // Formats 1 to 3 write zeros here; anything else is damage, not a feature this reader lacks (a
        // later format that used these bytes would carry a newer version, refused above).
        if (get_le(data + 12, 4) != 0) throw CaptureError("its file header is corrupt (reserved bytes set)");
        version_ = version;
        at_ = kFileHeaderBytes;
    }

    uint32_t version() const { return version_; }

    // Goes to the section header at `offset` (one an index named); throws for one outside the file.
    void seek(uint64_t offset) {
        if (offset < kFileHeaderBytes || offset >= size_)
            throw CaptureError(fmt::format("its index points at byte {}, outside the file", offset));
        at_ = static_cast<size_t>(offset);
    }

    // The next section; throws for one that is cut short, too big or does not inflate. With `inflate`
    // false, a section is checked as far as its header and passed over: its bytes are never touched.
    Section next(bool inflate = true) {
        if (size_ - at_ < kSectionHeaderBytes)
            throw CaptureError(at_ == size_
                                   ? "cut short: it ends before its END section"
                                   : fmt::format("cut short inside a section header at byte {}", at_));
        Section section;
        section.tag = static_cast<uint32_t>(get_le(data_ + at_, 4));
        const uint64_t stored = get_le(data_ + at_ + 8, 8);
        const uint64_t raw = get_le(data_ + at_ + 16, 8);
        const size_t header_at = at_;
        const bool reserved_clear = get_le(data_ + at_ + 4, 4) == 0;
        at_ += kSectionHeaderBytes;
        const std::string name = tag_name(section.tag);
        if (!reserved_clear)
            throw CaptureError(fmt::format(
                "the header of section {} at byte {} is corrupt (reserved bytes set)", name, header_at));
        if (section.tag == kEnd) {
            // Format 3's END holds no bytes but says where the index is, in its raw-size field.
            if (stored != 0 || (raw != 0 && version_ < 3)) throw CaptureError("its END section is not empty");
            end_value_ = raw;
            return section;
        }
        if (stored > size_ - at_)
            throw CaptureError(
                fmt::format("cut short: section {} at byte {} says {} bytes, the file holds {} more", name,
                            header_at, stored, size_ - at_));
        if (!inflate) {
            if (stored == 0)
                throw CaptureError(fmt::format("section {} at byte {} is empty", name, header_at));
            at_ += stored;
            return section;
        }
        if (raw > kMaxRawSectionBytes)
            throw CaptureError(
                fmt::format("section {} at byte {} says it inflates to {} bytes, more than any "
                            "capture section holds ({})",
                            name, header_at, raw, kMaxRawSectionBytes));
        inflated_ += raw;
        if (inflated_ > kInflationFloorBytes + kMaxInflation * size_)
            throw CaptureError(
                fmt::format("its sections inflate to more than {} times its size, which no capture "
                            "does (section {} at byte {})",
                            kMaxInflation, name, header_at));
        if (stored == 0) throw CaptureError(fmt::format("section {} at byte {} is empty", name, header_at));
        const unsigned long long content = ZSTD_getFrameContentSize(data_ + at_, stored);
        if (content == ZSTD_CONTENTSIZE_ERROR || content != raw)
            throw CaptureError(
                fmt::format("section {} at byte {} is corrupt (its compressed frame does not "
                            "match its header)",
                            name, header_at));
        section.raw.resize(raw);
        const size_t inflated =
            ZSTD_decompressDCtx(dctx_.get(), section.raw.data(), raw, data_ + at_, stored);
        if (ZSTD_isError(inflated) || inflated != raw)
            throw CaptureError(fmt::format("section {} at byte {} is corrupt ({})", name, header_at,
                                           ZSTD_isError(inflated) ? ZSTD_getErrorName(inflated) : "short"));
        at_ += stored;
        return section;
    }

    size_t offset() const { return at_; }
    bool at_end() const { return at_ == size_; }
    // What the END section's raw-size field held: in format 3, the offset of the index.
    uint64_t end_value() const { return end_value_; }

  private:
    const uint8_t* data_;
    size_t size_;
    uint32_t version_ = 0;
    size_t at_ = 0;
    uint64_t inflated_ = 0;
    uint64_t end_value_ = 0;
    std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx_{ZSTD_createDCtx(), ZSTD_freeDCtx};
};

}  // namespace pinscope::capture_sections
