// Fuzzes the font check that stands before the app's font atlas (core/fonts): any bytes give an answer,
// never a crash, a leak or a sanitizer report inside FreeType's reading of them. Seeds: the system's
// DejaVu Sans (copied in by `make test-fuzz`) and the small files of corpus/font/.
#include <cstdint>
#include <span>

#include "core/fonts/font_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    (void)pinscope::font_problem(std::span(data, size));
    return 0;
}
