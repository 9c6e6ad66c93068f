// make_test_images DIR [COUNT [WIDTHxHEIGHT]]: writes COUNT (1000) JPEGs of WIDTHxHEIGHT (500x375, an
// ImageNet-sized photo) to DIR, for `pinscope run --dataset folder:DIR` and its benchmarks.
#include <cstdio>
#include <cstdlib>

#include "tests/image_files.h"

int main(int argc, char** argv) {
    if (argc < 2 || argc > 4) {
        std::fprintf(stderr, "usage: make_test_images DIR [COUNT [WIDTHxHEIGHT]]\n");
        return 2;
    }
    const int count = argc > 2 ? std::atoi(argv[2]) : 1000;
    int width = 500, height = 375;
    if (argc > 3 && std::sscanf(argv[3], "%dx%d", &width, &height) != 2) {
        std::fprintf(stderr, "make_test_images: %s should be WIDTHxHEIGHT, e.g. 500x375\n", argv[3]);
        return 2;
    }
    if (count < 1 || width < 1 || height < 1 || width > 8192 || height > 8192) {
        std::fprintf(stderr, "make_test_images: COUNT and sizes must be positive (sizes at most 8192)\n");
        return 2;
    }
    pinscope::write_jpeg_folder(argv[1], count, width, height);
    std::printf("%d JPEGs of %dx%d in %s\n", count, width, height, argv[1]);
    return 0;
}
