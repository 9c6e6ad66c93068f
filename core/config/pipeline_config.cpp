#include "core/config/pipeline_config.h"

#include <charconv>
#include <limits>

namespace pinscope {

int element_bytes(TransferDtype dtype) {
    switch (dtype) {
        case TransferDtype::uint8:
            return 1;
        case TransferDtype::float16:
        case TransferDtype::bfloat16:
            return 2;
        default:
            return 4;
    }
}

int64_t SampleShape::elements() const {
    // Saturates instead of overflowing: shape_rule allows four sizes of 2^20, 2^80 elements, and
    // validate() must still be able to say that such a batch is too big.
    int64_t n = 1;
    for (int64_t d : dims)
        if (__builtin_mul_overflow(n, d, &n)) return std::numeric_limits<int64_t>::max();
    return dims.empty() ? 0 : n;
}

std::string SampleShape::to_string() const {
    std::string text;
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i) text += 'x';
        text += std::to_string(dims[i]);
    }
    return text;
}

std::optional<std::string> PipelineConfig::image_folder() const {
    constexpr std::string_view kFolder = "folder:";
    if (dataset.size() <= kFolder.size() || dataset.compare(0, kFolder.size(), kFolder) != 0)
        return std::nullopt;
    return dataset.substr(kFolder.size());
}

int PipelineConfig::effective_prefetch_factor() const {
    if (num_workers <= 0) return 0;
    return prefetch_factor.value_or(kDefaultPrefetchFactor);
}

std::optional<SampleShape> parse_sample_shape(std::string_view text) {
    SampleShape shape;
    shape.dims.clear();
    while (!text.empty()) {
        const size_t x = text.find('x');
        const std::string_view part = text.substr(0, x);
        int64_t value = 0;
        auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
        // Digits only: a sign or a space is a typo, not a size.
        if (part.empty() || part[0] < '0' || part[0] > '9') return std::nullopt;
        if (ec != std::errc{} || end != part.data() + part.size()) return std::nullopt;
        shape.dims.push_back(value);
        if (x == std::string_view::npos) break;
        text.remove_prefix(x + 1);
        if (text.empty()) return std::nullopt;  // trailing 'x'
    }
    if (shape.dims.empty()) return std::nullopt;
    return shape;
}

}  // namespace pinscope
