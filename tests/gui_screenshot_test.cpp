// Checks the PNG that `pinscope gui --screenshot` saved under Xvfb (see gui/gui_render_tests.cmake):
// the size asked for, not blank, and spans of the H2D, kernel and D2H lanes on screen.
#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <set>
#include <string>

#include <stb_image.h>

#include "app/gui/model/span_palette.h"

using namespace pinscope;
using namespace pinscope::gui;

namespace {

struct Png {
    int width = 0, height = 0;
    std::unique_ptr<unsigned char, void (*)(void*)> pixels{nullptr, stbi_image_free};

    Rgb at(int x, int y) const {
        const unsigned char* p = pixels.get() + (static_cast<size_t>(y) * width + x) * 3;
        return {p[0], p[1], p[2]};
    }
};

Png load(const char* path) {
    Png png;
    int channels = 0;
    png.pixels.reset(stbi_load(path, &png.width, &png.height, &channels, 3));
    return png;
}

// The most separate runs of `colour` in any one pixel row. A lane of spans has many boxes in a row;
// the legend's swatch of the same colour is a single run, so it cannot pass for a lane.
int most_runs_in_a_row(const Png& png, Rgb colour) {
    int most = 0;
    for (int y = 0; y < png.height; ++y) {
        int runs = 0;
        bool inside = false;
        for (int x = 0; x < png.width; ++x) {
            const bool match = png.at(x, y) == colour;
            if (match && !inside) ++runs;
            inside = match;
        }
        most = std::max(most, runs);
    }
    return most;
}

}  // namespace

TEST_CASE("the app's screenshot has the requested size, is not blank, and shows H2D, kernel and D2H spans") {
    const char* path = std::getenv("PINSCOPE_SCREENSHOT");
    const char* size = std::getenv("PINSCOPE_SCREENSHOT_SIZE");
    REQUIRE(path);
    REQUIRE(size);
    const Png png = load(path);
    REQUIRE_MESSAGE(png.pixels, "cannot read " << path << ": " << stbi_failure_reason());
    CHECK(std::to_string(png.width) + "x" + std::to_string(png.height) == size);

    std::set<uint32_t> colours;
    for (int y = 0; y < png.height; y += 2)
        for (int x = 0; x < png.width; x += 2) {
            const Rgb c = png.at(x, y);
            colours.insert(uint32_t{c.r} << 16 | uint32_t{c.g} << 8 | c.b);
        }
    CHECK(colours.size() > 100);  // text, widgets, lanes: far from a blank or one-colour frame

    for (SpanKind kind : {SpanKind::h2d, SpanKind::kernel, SpanKind::d2h}) {
        CAPTURE(span_kind_name(kind));
        CHECK(most_runs_in_a_row(png, kind_colour(Theme::dark, kind)) >= 5);
    }
}
