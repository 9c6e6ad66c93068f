#include "core/images/resized_crop.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace pinscope {
namespace {

// SplitMix64: a small, well-mixed generator whose sequence is the same on every platform (the standard
// distributions are not).
struct SplitMix {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform(double lo, double hi) {
        return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1p-53;
    }
    int integer(int lo, int hi) {  // in [lo, hi]
        return lo + static_cast<int>(next() % static_cast<uint64_t>(hi - lo + 1));
    }
};

}  // namespace

CropBox random_resized_crop(int width, int height, uint64_t seed) {
    SplitMix rng{seed};
    const double area = static_cast<double>(width) * height;
    const double log_lo = std::log(3.0 / 4.0), log_hi = std::log(4.0 / 3.0);
    CropBox box;
    bool found = false;
    for (int attempt = 0; attempt < 10 && !found; ++attempt) {
        const double target = area * rng.uniform(0.08, 1.0);
        const double aspect = std::exp(rng.uniform(log_lo, log_hi));
        const int w = static_cast<int>(std::lround(std::sqrt(target * aspect)));
        const int h = static_cast<int>(std::lround(std::sqrt(target / aspect)));
        if (w > 0 && w <= width && h > 0 && h <= height) {
            box = {rng.integer(0, height - h), rng.integer(0, width - w), h, w, false};
            found = true;
        }
    }
    if (!found) {  // torchvision's fallback: the centre, clamped to the ratio range
        const double ratio = static_cast<double>(width) / height;
        int w = width, h = height;
        if (ratio < 3.0 / 4.0)
            h = std::max(1, static_cast<int>(std::lround(w / (3.0 / 4.0))));
        else if (ratio > 4.0 / 3.0)
            w = std::max(1, static_cast<int>(std::lround(h * (4.0 / 3.0))));
        h = std::min(h, height), w = std::min(w, width);
        box = {(height - h) / 2, (width - w) / 2, h, w, false};
    }
    box.flip = rng.next() & 1;
    return box;
}

void crop_to_tensor(const RgbImage& image, const CropBox& box, int channels, int out_height, int out_width,
                    float* out) {
    // Source coordinate of each output column and row (pixel centres aligned, as align_corners=False).
    struct Tap {
        int a, b;
        float t;
    };
    const auto taps = [](int out_size, int in_size, int offset) {
        std::vector<Tap> result(static_cast<size_t>(out_size));
        const double scale = static_cast<double>(in_size) / out_size;
        for (int o = 0; o < out_size; ++o) {
            const double x = std::clamp((o + 0.5) * scale - 0.5, 0.0, static_cast<double>(in_size - 1));
            const int a = static_cast<int>(x);
            result[static_cast<size_t>(o)] = {offset + a, offset + std::min(a + 1, in_size - 1),
                                              static_cast<float>(x - a)};
        }
        return result;
    };
    std::vector<Tap> cols = taps(out_width, box.width, box.left);
    const std::vector<Tap> rows = taps(out_height, box.height, box.top);
    if (box.flip) std::reverse(cols.begin(), cols.end());
    const size_t plane = static_cast<size_t>(out_height) * out_width;
    const size_t stride = static_cast<size_t>(image.width) * 3;
    constexpr float kInv255 = 1.0f / 255.0f;
    for (int y = 0; y < out_height; ++y) {
        const Tap& r = rows[static_cast<size_t>(y)];
        const uint8_t* top = image.pixels.data() + static_cast<size_t>(r.a) * stride;
        const uint8_t* bottom = image.pixels.data() + static_cast<size_t>(r.b) * stride;
        for (int x = 0; x < out_width; ++x) {
            const Tap& c = cols[static_cast<size_t>(x)];
            float rgb[3];
            for (int ch = 0; ch < 3; ++ch) {
                const float upper = top[c.a * 3 + ch] + (top[c.b * 3 + ch] - top[c.a * 3 + ch]) * c.t;
                const float lower =
                    bottom[c.a * 3 + ch] + (bottom[c.b * 3 + ch] - bottom[c.a * 3 + ch]) * c.t;
                rgb[ch] = upper + (lower - upper) * r.t;
            }
            const size_t at = static_cast<size_t>(y) * out_width + x;
            if (channels == 1) {
                out[at] = (rgb[0] * 0.299f + rgb[1] * 0.587f + rgb[2] * 0.114f) * kInv255;
            } else {
                for (int ch = 0; ch < channels; ++ch) out[ch * plane + at] = rgb[ch % 3] * kInv255;
            }
        }
    }
}

}  // namespace pinscope
