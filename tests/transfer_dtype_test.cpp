// transfer_dtype: what a sample crosses the link as. Its bytes, the host's conversion (each value the
// nearest in its dtype to the float32 one), and the GPU's share of the work (the normalize kernel).
#include <doctest/doctest.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "core/config/validate.h"
#include "core/device/normalize.h"
#include "core/pipeline/dataset.h"
#include "core/pipeline/session_parts.h"

using namespace pinscope;

namespace {

// Decoders written from the formats' definitions, not from the code under test.
float from_float16(uint16_t h) {
    const int exponent = (h >> 10) & 31, mantissa = h & 1023;
    const float magnitude = exponent == 0
                                ? std::ldexp(static_cast<float>(mantissa), -24)
                                : std::ldexp(1.0f + static_cast<float>(mantissa) / 1024, exponent - 15);
    return (h & 0x8000) ? -magnitude : magnitude;
}
float from_bfloat16(uint16_t h) {
    return std::bit_cast<float>(static_cast<uint32_t>(h) << 16);
}

// `h` is the nearest value of its format to `x`, ties to an even pattern: neither neighbour is nearer.
template <class Decode>
bool nearest(uint16_t h, float x, Decode decode) {
    const double here = std::fabs(static_cast<double>(decode(h)) - x);
    for (int step : {-1, 1}) {
        const auto other = static_cast<uint16_t>(h + step);
        const double there = std::fabs(static_cast<double>(decode(other)) - x);
        if (there < here || (there == here && (h & 1))) return false;
    }
    return true;
}

// Sample `index` of a dataset of `shape` in `dtype`, as bytes.
std::vector<std::byte> sample(PipelineConfig config, TransferDtype dtype, int64_t index) {
    config.transfer_dtype = dtype;
    const SyntheticImageDataset dataset(config);
    std::vector<std::byte> out(static_cast<size_t>(dataset.sample_bytes()));
    const std::atomic<bool> stop{false};
    dataset.fetch(index, out.data(), stop);
    return out;
}

}  // namespace

TEST_CASE("a sample crosses the link in 4, 2, 2 or 1 bytes an element") {
    PipelineConfig config;
    config.sample_shape.dims = {3, 10, 10};
    const int expected[] = {4, 1, 2, 2};
    for (int d = 0; d < 4; ++d) {
        config.transfer_dtype = static_cast<TransferDtype>(d);
        CHECK(config.sample_bytes() == 300 * expected[d]);
        CHECK(SyntheticImageDataset(config).sample_bytes() == config.sample_bytes());
        CHECK(config.normalizes_on_gpu() == (config.transfer_dtype == TransferDtype::uint8));
    }
}

TEST_CASE("each dtype carries the float32 sample: uint8 its pixels, half precision its nearest values") {
    PipelineConfig config;
    // 33x33 planes: the vector paths' unaligned heads and tails are exercised; 3 channels, 3 constants.
    // Plain stores; the streaming stores of samples of 256 KiB and up, in float32 and half precision at
    // 3x160x160, in uint8 too at 3x297x297 (258 KiB, its tail not a whole 16 bytes).
    const std::vector<int64_t> shapes[] = {{3, 33, 33}, {3, 160, 160}, {3, 297, 297}};
    for (const std::vector<int64_t>& dims : shapes) {
        config.sample_shape.dims = dims;
        const int64_t plane = config.sample_shape.dims[1] * config.sample_shape.dims[2];
        const int64_t n = 3 * plane;
        for (int64_t index : {0, 5}) {
            const std::vector<std::byte> f32 = sample(config, TransferDtype::float32, index);
            const std::vector<std::byte> u8 = sample(config, TransferDtype::uint8, index);
            const std::vector<std::byte> f16 = sample(config, TransferDtype::float16, index);
            const std::vector<std::byte> b16 = sample(config, TransferDtype::bfloat16, index);
            int wrong_pixels = 0, wrong_f16 = 0, wrong_b16 = 0;
            for (int64_t i = 0; i < n; ++i) {
                float x;
                std::memcpy(&x, f32.data() + 4 * i, 4);
                const int c = static_cast<int>(i / plane);
                const auto pixel = static_cast<float>(static_cast<uint8_t>(u8[static_cast<size_t>(i)]));
                wrong_pixels += pixel * normalize_scale(c) + normalize_bias(c) != x;
                uint16_t h, b;
                std::memcpy(&h, f16.data() + 2 * i, 2);
                std::memcpy(&b, b16.data() + 2 * i, 2);
                wrong_f16 += !nearest(h, x, from_float16);
                wrong_b16 += !nearest(b, x, from_bfloat16);
            }
            CHECK(wrong_pixels == 0);
            CHECK(wrong_f16 == 0);
            CHECK(wrong_b16 == 0);
        }
    }
}

// A folder's crops are ToTensor's floats in [0, 1]: uint8 carries them as the pixels they were, half
// precision as their nearest values.
TEST_CASE("a folder's crops cross the link in each dtype too") {
    PipelineConfig config;
    config.dataset = std::string("folder:") + PINSCOPE_TEST_IMAGES;
    config.sample_shape.dims = {3, 24, 24};
    REQUIRE(validate(config).ok());
    auto folder_sample = [&](TransferDtype dtype) {
        PipelineConfig c = config;
        c.transfer_dtype = dtype;
        REQUIRE(validate(c).ok());
        const std::unique_ptr<Dataset> dataset = make_dataset(c);
        std::vector<std::byte> out(static_cast<size_t>(dataset->sample_bytes()));
        REQUIRE(out.size() == static_cast<size_t>(c.sample_bytes()));
        const std::atomic<bool> stop{false};
        dataset->fetch(3, out.data(), stop);
        return out;
    };
    const std::vector<std::byte> f32 = folder_sample(TransferDtype::float32);
    const std::vector<std::byte> u8 = folder_sample(TransferDtype::uint8);
    const std::vector<std::byte> f16 = folder_sample(TransferDtype::float16);
    int wrong_pixels = 0, wrong_f16 = 0;
    for (size_t i = 0; i < u8.size(); ++i) {
        float x;
        std::memcpy(&x, f32.data() + 4 * i, 4);
        wrong_pixels += std::fabs(static_cast<float>(static_cast<uint8_t>(u8[i])) / 255.0f - x) > 0.5f / 255;
        uint16_t h;
        std::memcpy(&h, f16.data() + 2 * i, 2);
        wrong_f16 += !nearest(h, x, from_float16);
    }
    CHECK(wrong_pixels == 0);
    CHECK(wrong_f16 == 0);
}
