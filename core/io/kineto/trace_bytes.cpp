#include "core/io/kineto/trace_bytes.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/io/capture.h"

namespace pinscope {

namespace {
constexpr size_t kInputBlock = 1 << 20;  // compressed bytes read at a time
}

struct TraceBytes::Inflater {
    z_stream z{};
    std::vector<unsigned char> input = std::vector<unsigned char>(kInputBlock);
    bool member_ended = false;  // the last gzip member ended cleanly; more input may start another
    Inflater() {
        // 16 + MAX_WBITS: a gzip header and trailer (with its CRC), not a raw or zlib stream.
        if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw CaptureError("zlib could not start");
    }
    ~Inflater() { inflateEnd(&z); }
};

TraceBytes::TraceBytes(const std::filesystem::path& path) {
    file_.reset(std::fopen(path.c_str(), "rb"));
    if (!file_) throw CaptureError(fmt::format("{}: {}", path.string(), std::strerror(errno)));
    std::error_code error;
    file_bytes_ = std::filesystem::file_size(path, error);
    if (error) file_bytes_ = 0;
    const int first = std::fgetc(file_.get()), second = std::fgetc(file_.get());
    gzipped_ = first == 0x1f && second == 0x8b;
    std::rewind(file_.get());
    if (gzipped_) inflater_ = std::make_unique<Inflater>();
}

TraceBytes::~TraceBytes() = default;

double TraceBytes::share_read() const {
    if (file_bytes_ == 0) return 0;
    return std::min(1.0, static_cast<double>(consumed_) / static_cast<double>(file_bytes_));
}

size_t TraceBytes::read_raw(char* out, size_t capacity) {
    const size_t got = std::fread(out, 1, capacity, file_.get());
    consumed_ += got;
    if (got == 0 && std::ferror(file_.get()))
        problem_ = fmt::format("reading failed: {}", std::strerror(errno));
    return got;
}

size_t TraceBytes::read(char* out, size_t capacity) {
    if (ended_ || capacity == 0) return 0;
    const size_t got = gzipped_ ? inflate_into(out, capacity) : read_raw(out, capacity);
    if (got == 0) ended_ = true;
    return got;
}

size_t TraceBytes::inflate_into(char* out, size_t capacity) {
    Inflater& in = *inflater_;
    in.z.next_out = reinterpret_cast<Bytef*>(out);
    const uInt wanted = static_cast<uInt>(std::min<size_t>(capacity, 1u << 30));
    in.z.avail_out = wanted;
    while (in.z.avail_out > 0) {
        if (in.z.avail_in == 0) {
            const size_t got = read_raw(reinterpret_cast<char*>(in.input.data()), in.input.size());
            if (got == 0) {
                if (!in.member_ended && problem_.empty())
                    problem_ = "the gzip stream is cut short (the file was truncated)";
                break;
            }
            in.z.next_in = in.input.data();
            in.z.avail_in = static_cast<uInt>(got);
        }
        if (in.member_ended) {
            // Another gzip member follows the one that ended (or trailing bytes that are not one).
            if (in.z.next_in[0] != 0x1f) break;
            inflateReset(&in.z);
            in.member_ended = false;
        }
        const int status = inflate(&in.z, Z_NO_FLUSH);
        if (status == Z_STREAM_END) {
            in.member_ended = true;
        } else if (status == Z_BUF_ERROR) {
            continue;  // needs more input: the loop reads it
        } else if (status != Z_OK) {
            problem_ = fmt::format("the gzip stream is corrupt ({})", in.z.msg ? in.z.msg : "zlib error");
            break;
        }
    }
    return wanted - in.z.avail_out;
}

}  // namespace pinscope
