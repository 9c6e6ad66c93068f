#include "core/pipeline/dataset.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <mutex>
#include <random>

#include <fmt/format.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "core/device/normalize.h"
#include "core/trace/clock.h"
#include "core/trace/precise_sleep.h"
#include "core/trace/slow_motion.h"
#include "core/units/half_float.h"

namespace pinscope {
namespace {

constexpr int64_t kPixelPoolBytes = 8 << 20;
// Samples this large are written with streaming stores (see convert_plane).
constexpr int64_t kStreamingSampleBytes = 256 << 10;

#if defined(__SSE2__)
// Sixteen pixels from `s` as four vectors of their normalised floats, s[i] * scale + bias, in order. Plain
// SSE2, so the F16C path below can use it as well as the baseline's.
inline void sixteen_normalised(const uint8_t* s, __m128 scale, __m128 bias, __m128 out[4]) {
    const __m128i zero = _mm_setzero_si128();
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const __m128i lo = _mm_unpacklo_epi8(bytes, zero), hi = _mm_unpackhi_epi8(bytes, zero);
    const __m128i words[4] = {_mm_unpacklo_epi16(lo, zero), _mm_unpackhi_epi16(lo, zero),
                              _mm_unpacklo_epi16(hi, zero), _mm_unpackhi_epi16(hi, zero)};
    for (int k = 0; k < 4; ++k) out[k] = _mm_add_ps(_mm_mul_ps(_mm_cvtepi32_ps(words[k]), scale), bias);
}

// Sixteen 16-bit values, eight in each vector, to `d` (16-byte aligned); with `streaming` around the cache.
inline void store_sixteen(uint16_t* d, __m128i first, __m128i second, bool streaming) {
    auto* out = reinterpret_cast<__m128i*>(d);
    if (streaming) {
        _mm_stream_si128(out, first);
        _mm_stream_si128(out + 1, second);
    } else {
        _mm_store_si128(out, first);
        _mm_store_si128(out + 1, second);
    }
}
#endif

// d[i] = s[i] * scale + bias. With `streaming`, the floats go to memory around the cache: a plain store
// first reads each destination line, so streaming halves the memory traffic of a large batch, and
// nothing here reads the batch back (the copy engine or the pin thread reads it from memory anyway).
// Both paths compute the same multiply and add, so the values are identical.
void convert_plane(const uint8_t* s, float* d, int64_t n, float scale, float bias, bool streaming) {
    int64_t i = 0;
#if defined(__SSE2__)
    if (streaming) {
        for (; i < n && reinterpret_cast<uintptr_t>(d + i) % 16 != 0; ++i)
            d[i] = static_cast<float>(s[i]) * scale + bias;
        const __m128 vscale = _mm_set1_ps(scale), vbias = _mm_set1_ps(bias);
        for (; i + 16 <= n; i += 16) {
            __m128 values[4];
            sixteen_normalised(s + i, vscale, vbias, values);
            for (int k = 0; k < 4; ++k) _mm_stream_ps(d + i + 4 * k, values[k]);
        }
        _mm_sfence();  // streaming stores are weakly ordered: complete them before the batch is handed on
    }
#endif
    for (; i < n; ++i) d[i] = static_cast<float>(s[i]) * scale + bias;  // vectorises
}

// transfer_dtype uint8: the pixels as they are. With `streaming` around the cache, as convert_plane's large
// samples: memcpy's plain stores read each destination line first, and on an H200 host 14 workers copying
// 768 KiB samples straight into pinned memory that way made the copy engine's reads of the batches before
// them run at 38.5-41.4 GB/s against 45.4-46.3 streamed (48,500 against 57,500 samples/s, median of four).
void copy_pixels(const uint8_t* s, std::byte* d, int64_t n, bool streaming) {
    int64_t i = 0;
#if defined(__SSE2__)
    if (streaming) {
        for (; i < n && reinterpret_cast<uintptr_t>(d + i) % 16 != 0; ++i)
            d[i] = static_cast<std::byte>(s[i]);
        for (; i + 16 <= n; i += 16)
            _mm_stream_si128(reinterpret_cast<__m128i*>(d + i),
                             _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)));
        _mm_sfence();  // complete them before the batch is handed on
    }
#endif
    std::memcpy(d + i, s + i, static_cast<size_t>(n - i));
}

// The half-precision path of a plane, as convert_plane: the same floats, then each rounded to 16 bits.
// `table` holds the 256 results (what the scalar head and tail read); with SSE2 the body computes them
// sixteen at a time, so collating into half precision costs about what float32 does, not a table walk.
// Its float16 rounding (to nearest even, in integer steps) holds for values whose half is normal, as all
// of Normalize's are (|x| from 0.001 to 2.7); dataset_test checks every value against the table.
#if defined(__x86_64__)
// float16 with the CPU's own conversion (F16C: every x86-64 CPU since 2012, and what PyTorch's .half()
// uses), compiled for it here and chosen at run time, as Debian's x86-64 baseline does not have it. It
// shares the SSE2 helpers above (a function compiled for F16C may call baseline code), but its own loop
// stays apart from convert_plane_half's: a function compiled for f16c may use AVX encodings anywhere in
// it (GCC's f16c implies avx), and the fallback must run on CPUs without them.
__attribute__((target("f16c"))) void convert_plane_f16c(const uint8_t* s, uint16_t* d, int64_t n, float scale,
                                                        float bias, const uint16_t* table, bool streaming) {
    int64_t i = 0;
    for (; i < n && reinterpret_cast<uintptr_t>(d + i) % 16 != 0; ++i) d[i] = table[s[i]];
    const __m128 vscale = _mm_set1_ps(scale), vbias = _mm_set1_ps(bias);
    for (; i + 16 <= n; i += 16) {
        __m128 values[4];
        sixteen_normalised(s + i, vscale, vbias, values);
        __m128i halves[4];
        for (int k = 0; k < 4; ++k) halves[k] = _mm_cvtps_ph(values[k], _MM_FROUND_TO_NEAREST_INT);
        store_sixteen(d + i, _mm_unpacklo_epi64(halves[0], halves[1]),
                      _mm_unpacklo_epi64(halves[2], halves[3]), streaming);
    }
    if (streaming) _mm_sfence();
    for (; i < n; ++i) d[i] = table[s[i]];
}

// CPUID's F16C bit, and the OS saving the AVX registers that its VEX-encoded instructions use. (Asked of
// CPUID itself: clang 14's __builtin_cpu_supports does not know "f16c".)
bool cpu_has_f16c() {
    static const bool has = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
        if (!(ecx & bit_F16C) || !(ecx & bit_AVX) || !(ecx & bit_OSXSAVE)) return false;
        uint32_t low = 0, high = 0;
        asm volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
        return (low & 6u) == 6u;  // XMM and YMM state enabled
    }();
    return has;
}
#endif

void convert_plane_half(const uint8_t* s, uint16_t* d, int64_t n, float scale, float bias,
                        const uint16_t* table, bool bf16, bool streaming) {
#if defined(__x86_64__)
    if (!bf16 && cpu_has_f16c()) return convert_plane_f16c(s, d, n, scale, bias, table, streaming);
#endif
    int64_t i = 0;
#if defined(__SSE2__)
    for (; i < n && reinterpret_cast<uintptr_t>(d + i) % 16 != 0; ++i) d[i] = table[s[i]];
    const __m128 vscale = _mm_set1_ps(scale), vbias = _mm_set1_ps(bias);
    const auto to_half = [&](__m128 value) {
        const __m128i bits = _mm_castps_si128(value);
        __m128i half;
        if (bf16) {
            const __m128i odd = _mm_and_si128(_mm_srli_epi32(bits, 16), _mm_set1_epi32(1));
            half = _mm_srli_epi32(_mm_add_epi32(_mm_add_epi32(bits, _mm_set1_epi32(0x7fff)), odd), 16);
        } else {
            const __m128i sign = _mm_and_si128(bits, _mm_set1_epi32(static_cast<int>(0x80000000u)));
            const __m128i magnitude = _mm_xor_si128(bits, sign);
            const __m128i odd = _mm_and_si128(_mm_srli_epi32(magnitude, 13), _mm_set1_epi32(1));
            const __m128i rounded = _mm_add_epi32(_mm_add_epi32(magnitude, _mm_set1_epi32(0x0fff)), odd);
            half = _mm_or_si128(_mm_sub_epi32(_mm_srli_epi32(rounded, 13), _mm_set1_epi32(112 << 10)),
                                _mm_srli_epi32(sign, 16));
        }
        // Sign-extend the low 16 bits so the saturating pack keeps them as they are.
        return _mm_srai_epi32(_mm_slli_epi32(half, 16), 16);
    };
    for (; i + 16 <= n; i += 16) {
        __m128 values[4];
        sixteen_normalised(s + i, vscale, vbias, values);
        __m128i halves[4];
        for (int k = 0; k < 4; ++k) halves[k] = to_half(values[k]);
        store_sixteen(d + i, _mm_packs_epi32(halves[0], halves[1]), _mm_packs_epi32(halves[2], halves[3]),
                      streaming);
    }
    if (streaming) _mm_sfence();
#else
    (void)scale, (void)bias, (void)bf16, (void)streaming;
#endif
    for (; i < n; ++i) d[i] = table[s[i]];
}

// The pixel pool depends only on its size and seed. A reconfigured pipeline builds a new dataset each
// time (a slider drag can do that many times a second), so the last pool is kept and shared.
std::shared_ptr<const PixelPool> pixel_pool(size_t bytes, uint64_t seed) {
    static std::mutex mutex;
    static std::shared_ptr<const PixelPool> last;
    static uint64_t last_seed = 0;
    std::lock_guard lock(mutex);
    if (last && last->size() == bytes && last_seed == seed) return last;
    auto pool = std::make_shared<PixelPool>(bytes);
    std::mt19937_64 random(seed);
    for (size_t i = 0; i < bytes; i += 8) {
        const uint64_t r = random();
        for (size_t b = 0; b < 8 && i + b < bytes; ++b) (*pool)[i + b] = static_cast<uint8_t>(r >> (8 * b));
    }
    last = pool;
    last_seed = seed;
    return last;
}

}  // namespace

// Spins until this thread has run `us` on a core. Timed by the wall clock alone, a worker preempted
// mid-spin finished its decode on time without the CPU it stands for: 3 workers decoding 2,400 us a sample
// on this project's 2-core VM made 1,040 samples/s where the two cores can decode 830 at most, and workers
// beyond the core count went on helping a CPU-bound loader, against what decode_us promises. So the
// deadline moves out by each stretch the thread spent off its core (OnCoreClock). The thread's CPU clock
// would say the same but is a system call: read in the spin itself, 16 workers spent 70% of their time in
// the kernel on this VM; read twice a call, a 6 us decode took 8.3 us of its core (64 of them 530 us a
// batch where the predictor counts 384).
void spend_cpu_us(double us, const std::atomic<bool>& stop) {
    OnCoreClock clock;
    TimeNs deadline = clock.last() + us_to_ns(us);
    while (clock.last() < deadline && !stop.load(std::memory_order_relaxed)) deadline += clock.tick();
}

void spend_wait_us(double us, const std::atomic<bool>& stop) {
    constexpr TimeNs kSlice = 10 * kNsPerMs;  // long waits are sliced so a stop is noticed soon
    TimeNs left = us_to_ns(us);
    while (left > 0 && !stop.load(std::memory_order_relaxed)) {
        const TimeNs step = std::min(left, kSlice);
        sleep_for_ns(step);
        left -= step;
    }
}

SyntheticImageDataset::SyntheticImageDataset(const PipelineConfig& config)
    : dtype_(config.transfer_dtype),
      elements_(config.sample_shape.elements()),
      plane_(config.sample_shape.dims.size() == 3 ? elements_ / config.sample_shape.dims[0] : elements_),
      decode_us_(config.decode_us * config.slow_motion),
      io_us_(config.io_us * config.slow_motion),
      slow_motion_(config.slow_motion),
      cost_jitter_(config.cost_jitter),
      batch_size_(config.batch_size),
      straggler_every_(config.straggler_every),
      straggler_factor_(config.straggler_factor),
      seed_(config.seed),
      fail_at_sample_(config.fail_at_sample),
      pixels_(pixel_pool(static_cast<size_t>(std::max<int64_t>(kPixelPoolBytes, elements_ + 4096)),
                         config.seed)) {
    channels_ = plane_ == elements_ ? 1 : static_cast<int>(elements_ / plane_);
    for (int c = 0; c < 3; ++c) {
        scale_[c] = normalize_scale(c);
        bias_[c] = normalize_bias(c);
        for (int v = 0; v < 256; ++v) {
            const float normalized = static_cast<float>(v) * scale_[c] + bias_[c];  // as convert_plane does
            half_[c][v] =
                dtype_ == TransferDtype::bfloat16 ? to_bfloat16(normalized) : to_float16(normalized);
        }
    }
    window_starts_ = static_cast<int64_t>(pixels_->size()) - elements_;
    streaming_ = writes_around_the_cache(config);
    costs_time_ = io_us_ > 0 || decode_us_ > 0 || slow_motion_ > 1;
}

bool writes_around_the_cache(const PipelineConfig& config) {
    return config.sample_bytes() >= kStreamingSampleBytes;
}

double SyntheticImageDataset::cost_scale(int64_t index) const {
    double scale = 1;
    if (cost_jitter_ > 0) {
        // A draw per sample from its index and the seed (splitmix64): the same every run.
        uint64_t z = static_cast<uint64_t>(index) * 0x9E3779B97F4A7C15ull + seed_;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        const double uniform = static_cast<double>(z >> 11) * 0x1.0p-53;  // [0, 1)
        scale *= 1 + cost_jitter_ * (2 * uniform - 1);
    }
    const int64_t batch = batch_size_ > 0 ? index / batch_size_ : 0;
    if (straggler_every_ > 0 && batch % straggler_every_ == straggler_every_ - 1) scale *= straggler_factor_;
    return scale;
}

void SyntheticImageDataset::fetch(int64_t index, std::byte* out, const std::atomic<bool>& stop) const {
    if (index == fail_at_sample_)
        throw DatasetError("ValueError",
                           fmt::format("sample {} is corrupt (fail_at_sample={})", index, fail_at_sample_));
    if (costs_time_) return fetch_paying(index, out, stop);
    convert(index, out);
}

// Out of line so that fetch() stays a few instructions for the engine benchmark's zero-cost samples:
// inlined, these locals made every sample save and restore six registers, a sixth of its cost there.
void SyntheticImageDataset::fetch_paying(int64_t index, std::byte* out, const std::atomic<bool>& stop) const {
    if (io_us_ > 0 || decode_us_ > 0) {
        const double cost = cost_scale(index);
        if (io_us_ > 0) spend_wait_us(io_us_ * cost, stop);
        if (decode_us_ > 0) spend_cpu_us(decode_us_ * cost, stop);
    }
    StretchedWork slowed(slow_motion_, &stop);
    convert(index, out);
}

void SyntheticImageDataset::convert(int64_t index, std::byte* out) const {
    // Each sample reads its own window of the pool, so consecutive samples touch different memory.
    const uint8_t* src = pixels_->data() + (window_starts_ > 0 ? (index * 7919 * 64) % window_starts_ : 0);
    switch (dtype_) {
        case TransferDtype::uint8:
            copy_pixels(src, out, elements_, streaming_);
            return;
        case TransferDtype::float16:
        case TransferDtype::bfloat16:
            for (int c = 0; c < channels_; ++c)
                convert_plane_half(src + c * plane_, reinterpret_cast<uint16_t*>(out) + c * plane_, plane_,
                                   scale_[c % 3], bias_[c % 3], half_[c % 3],
                                   dtype_ == TransferDtype::bfloat16, streaming_);
            return;
        default:
            for (int c = 0; c < channels_; ++c)
                convert_plane(src + c * plane_, reinterpret_cast<float*>(out) + c * plane_, plane_,
                              scale_[c % 3], bias_[c % 3], streaming_);
    }
}

}  // namespace pinscope
