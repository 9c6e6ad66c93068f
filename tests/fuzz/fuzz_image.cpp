// Fuzzes the image decoders the workers run on a stranger's folder (core/images): any bytes give a
// picture or an ImageError, never a crash, a leak, a sanitizer report or a huge allocation; a picture that
// decodes is then cropped and converted as a sample would be. Seeds (corpus/image/): small JPEGs (RGB,
// grey, CMYK) and PNGs (RGB, grey) written by tests/image_files.h.
#include <cstdint>
#include <span>
#include <vector>

#include "core/images/image_decode.h"
#include "core/images/resized_crop.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        // A lower cap than the workers' keeps each input fast; the cap's check is the same code.
        const pinscope::RgbImage image = pinscope::decode_image(std::span(data, size), int64_t{4} << 20);
        const pinscope::CropBox box = pinscope::random_resized_crop(image.width, image.height, size);
        std::vector<float> out(3 * 16 * 16);
        pinscope::crop_to_tensor(image, box, 3, 16, 16, out.data());
    } catch (const pinscope::ImageError&) {
    }
    return 0;
}
