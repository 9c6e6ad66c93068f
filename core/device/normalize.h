#pragma once
// Normalize's constants, shared by the host's collate (dataset.cpp) and the GPU's kernel for uint8
// batches (transfer_dtype uint8), so both make the same floats: channel c of pixel x becomes
// x * scale(c) + bias(c), that is (x / 255 - mean) / std with ImageNet's statistics, as torchvision's
// ToTensor + Normalize in most training scripts.
namespace pinscope {

inline constexpr float kImageNetMean[3] = {0.485f, 0.456f, 0.406f};
inline constexpr float kImageNetStd[3] = {0.229f, 0.224f, 0.225f};

inline constexpr float normalize_scale(int channel) {
    return 1.0f / (255.0f * kImageNetStd[channel % 3]);
}
inline constexpr float normalize_bias(int channel) {
    return -kImageNetMean[channel % 3] / kImageNetStd[channel % 3];
}

}  // namespace pinscope
