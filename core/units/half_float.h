#pragma once
// float32 to the 16-bit formats a sample may cross the link in (transfer_dtype), rounded to nearest even:
// IEEE binary16 (float16) and bfloat16 (float32's upper half).
#include <bit>
#include <cstdint>

namespace pinscope {

// Overflow gives infinity and NaN is not expected (image values are small and finite).
inline uint16_t to_float16(float value) {
    const auto bits = std::bit_cast<uint32_t>(value);
    const auto sign = static_cast<uint32_t>((bits >> 16) & 0x8000u);
    const int exponent = static_cast<int>((bits >> 23) & 0xffu) - 127 + 15;
    uint32_t mantissa = bits & 0x7fffffu;
    if (exponent >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
    int shift = 13;
    uint32_t half = 0;
    if (exponent <= 0) {  // a subnormal half, or zero
        if (exponent < -10) return static_cast<uint16_t>(sign);
        mantissa |= 0x800000u;
        shift = 14 - exponent;
    } else {
        half = static_cast<uint32_t>(exponent) << 10;
    }
    half |= mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;  // a carry into the exponent is right
    return static_cast<uint16_t>(sign | half);
}

inline uint16_t to_bfloat16(float value) {
    const auto bits = std::bit_cast<uint32_t>(value);
    return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

}  // namespace pinscope
