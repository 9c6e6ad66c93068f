#pragma once
// torchvision's training transform for an image folder: RandomResizedCrop(size) (scale 0.08 to 1 of the
// area, aspect ratio 3/4 to 4/3, ten tries then a centre crop), RandomHorizontalFlip(0.5) and ToTensor
// (channels first, float32 in [0, 1]). Resizing is bilinear without antialiasing, as torchvision's
// tensor path did before 0.17. Seeded: the same seed and sample give the same crop.
#include <cstdint>

#include "core/images/image_decode.h"

namespace pinscope {

struct CropBox {
    int top = 0, left = 0, height = 0, width = 0;
    bool flip = false;
};

// The crop and flip RandomResizedCrop + RandomHorizontalFlip draw for an image of `width` x `height`
// from `seed` (e.g. the run's seed mixed with the sample index).
CropBox random_resized_crop(int width, int height, uint64_t seed);

// Writes `box` of `image`, resized to out_height x out_width, as `channels` (3: RGB, 1: PIL's "L" grey)
// planes of float32 in [0, 1] to `out` (channels * out_height * out_width floats).
void crop_to_tensor(const RgbImage& image, const CropBox& box, int channels, int out_height, int out_width,
                    float* out);

}  // namespace pinscope
