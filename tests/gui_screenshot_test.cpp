// Checks the PNG that `pinscope gui --screenshot` saved under Xvfb (see gui/gui_render_tests.cmake):
// the size asked for, not blank, and spans of the H2D, kernel and D2H lanes on screen.
#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <stb_image.h>

#include "app/gui/model/span_palette.h"
#include "app/gui/model/sweep_heatmap.h"

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

    // Separate boxes of each kind on one lane. The live edge shows about 40 ms, which on two cores holds
    // 3 to 6 batches per stream depending on how busy the machine is, so three are asked for (the
    // legend's swatch is one box in its own row).
    for (SpanKind kind : {SpanKind::h2d, SpanKind::kernel, SpanKind::d2h}) {
        CAPTURE(span_kind_name(kind));
        CHECK(most_runs_in_a_row(png, kind_colour(Theme::dark, kind)) >= 3);
    }
}

namespace {

// Whether `p` is `colour` drawn over the dark background at some opacity (a fold's faint box, or a
// span at full strength): its difference from the background points the way the colour's does.
bool tinted_with(Rgb p, Rgb colour) {
    const Rgb bg = kDarkPalette.background;
    const double d[3] = {double(colour.r) - bg.r, double(colour.g) - bg.g, double(colour.b) - bg.b};
    const double q[3] = {double(p.r) - bg.r, double(p.g) - bg.g, double(p.b) - bg.b};
    const double t = (q[0] * d[0] + q[1] * d[1] + q[2] * d[2]) / (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (t < 0.15) return false;
    double off = 0;
    for (int k = 0; k < 3; ++k) off += (q[k] - t * d[k]) * (q[k] - t * d[k]);
    return off < 16 * 16;
}

// For each lane of `colour` (a band of pixel rows where the colour, at any opacity, covers a good part of
// the width or shows as several boxes), the share of the band's area drawn in the colour at full strength:
// how solid it looks.
std::vector<double> lane_fills(const Png& png, Rgb colour) {
    std::vector<double> fills;
    int solid = 0, rows = 0, left = png.width, right = 0;
    auto close_band = [&] {
        if (rows > 0 && right > left)
            fills.push_back(static_cast<double>(solid) / (static_cast<double>(rows) * (right - left + 1)));
        solid = rows = 0;
        left = png.width;
        right = 0;
    };
    for (int y = 0; y < png.height; ++y) {
        int tinted = 0, exact = 0, runs = 0, first = png.width, last = 0;
        bool inside = false;
        for (int x = 0; x < png.width; ++x) {
            const Rgb p = png.at(x, y);
            runs += p == colour && !inside;
            inside = p == colour;
            if (!tinted_with(p, colour)) continue;
            ++tinted;
            exact += p == colour;
            first = std::min(first, x);
            last = std::max(last, x);
        }
        if (tinted > png.width / 7 || runs >= 4) {  // a lane: wide folds, or several boxes (not a swatch)
            solid += exact;
            ++rows;
            left = std::min(left, first);
            right = std::max(right, last);
        } else {
            close_band();
        }
    }
    close_band();
    return fills;
}

}  // namespace

TEST_CASE("preset 09's kernel lanes are visibly not solid, at its own zoom and folded at 2 s") {
    const char* path = std::getenv("PINSCOPE_SCREENSHOT");
    REQUIRE(path);
    const Png png = load(path);
    REQUIRE_MESSAGE(png.pixels, "cannot read " << path << ": " << stbi_failure_reason());
    const std::vector<double> fills = lane_fills(png, kind_colour(Theme::dark, SpanKind::kernel));
    for (double fill : fills) MESSAGE("a kernel lane is " << fill * 100 << "% filled");
    REQUIRE(fills.size() >= 3);  // the preset's three streams
    for (double fill : fills) {
        CHECK(fill > 0.05);  // kernels show
        CHECK(fill < 0.45);  // not one solid block: each stream runs a kernel about a third of the time
    }
}

namespace {

// Pixel rows where `colour` shows as at least `runs` separate boxes: the rows of lanes of that colour.
// Only row `only` when given.
std::vector<int> rows_with_runs(const Png& png, Rgb colour, int runs, int only = -1) {
    std::vector<int> rows;
    for (int y = only < 0 ? 0 : only; y < (only < 0 ? png.height : only + 1); ++y) {
        int found = 0;
        bool inside = false;
        for (int x = 0; x < png.width; ++x) {
            const bool match = png.at(x, y) == colour;
            found += match && !inside;
            inside = match;
        }
        if (found >= runs) rows.push_back(y);
    }
    return rows;
}

}  // namespace

TEST_CASE(
    "the compare view stacks the pageable capture's hatched copies over the pinned one's solid copies") {
    const char* path = std::getenv("PINSCOPE_SCREENSHOT");
    REQUIRE(path);
    const Png png = load(path);
    REQUIRE_MESSAGE(png.pixels, "cannot read " << path << ": " << stbi_failure_reason());
    // A's H2D lanes: copies from pageable memory, blue boxes hatched in the warning colour. B's: blue
    // boxes without a stripe.
    const Rgb stripe = kDarkPalette.pageable_stripe;
    const std::vector<int> hatched = rows_with_runs(png, stripe, 10);
    std::vector<int> solid;
    for (int y : rows_with_runs(png, kind_colour(Theme::dark, SpanKind::h2d), 10))
        if (rows_with_runs(png, stripe, 1, y).empty()) solid.push_back(y);
    MESSAGE(hatched.size() << " rows of hatched copies, " << solid.size() << " rows of pinned copies");
    REQUIRE(hatched.size() >= 3 * 8);  // three streams' lanes, most of each row's height
    REQUIRE(solid.size() >= 3 * 8);
    CHECK(hatched.back() < solid.front());  // A above B
}

namespace {

// Whether `p` lies on the heatmap's colour scale (within a rounding step of some heat_colour(t)).
bool on_heat_scale(Rgb p) {
    for (int i = 0; i <= 400; ++i) {
        const Rgb c = heat_colour(i / 400.0);
        if (std::abs(c.r - p.r) <= 2 && std::abs(c.g - p.g) <= 2 && std::abs(c.b - p.b) <= 2) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("the sweep's heatmaps show a row of cells of the colour scale, in many colours") {
    const char* path = std::getenv("PINSCOPE_SCREENSHOT");
    REQUIRE(path);
    const Png png = load(path);
    REQUIRE_MESSAGE(png.pixels, "cannot read " << path << ": " << stbi_failure_reason());
    // A cell is a block of one colour of the scale, far wider than a step of the scale's legend. Count
    // them row by row: two panels of four columns put 8 in a pixel row.
    constexpr int kCellWidth = 30;
    int most_cells_in_a_row = 0;
    std::set<uint32_t> cell_colours;
    for (int y = 0; y < png.height; ++y) {
        int cells = 0;
        for (int x = 0; x < png.width;) {
            const Rgb c = png.at(x, y);
            int end = x + 1;
            while (end < png.width && png.at(end, y) == c) ++end;
            if (end - x >= kCellWidth && on_heat_scale(c) && !(c == kDarkPalette.background)) {
                ++cells;
                cell_colours.insert(uint32_t{c.r} << 16 | uint32_t{c.g} << 8 | c.b);
            }
            x = end;
        }
        most_cells_in_a_row = std::max(most_cells_in_a_row, cells);
    }
    MESSAGE(most_cells_in_a_row << " cells in the fullest pixel row, " << cell_colours.size() << " colours");
    CHECK(most_cells_in_a_row >= 8);
    CHECK(cell_colours.size() >= 6);  // samples/s differ across the grid: not one flat colour
}

TEST_CASE("presentation mode shows the lesson's question in large type beside the timeline") {
    const char* path = std::getenv("PINSCOPE_SCREENSHOT");
    REQUIRE(path);
    const Png png = load(path);
    REQUIRE_MESSAGE(png.pixels, "cannot read " << path << ": " << stbi_failure_reason());
    // Text is light on the dark theme. The tallest unbroken vertical stroke of text in the panel (the left
    // third) says how big its type is: a letter's stem at the app's normal size is about 12 px; the
    // question's, in presentation mode, about twice that once its type has stepped down so that every
    // choice and the reveal button fit the panel (25 px at 1600x900; 34 px before, with choice 3 cut).
    auto light = [&](int x, int y) {
        const Rgb c = png.at(x, y);
        return c.r > 170 && c.g > 170 && c.b > 170;
    };
    int tallest_in_panel = 0, tallest_in_timeline = 0;
    for (int x = 0; x < png.width; ++x)
        for (int y = 0, run = 0; y < png.height; ++y) {
            run = light(x, y) ? run + 1 : 0;
            int& tallest = x < png.width / 3 ? tallest_in_panel : tallest_in_timeline;
            tallest = std::max(tallest, run);
        }
    MESSAGE("tallest text stroke: " << tallest_in_panel << " px in the lesson panel, " << tallest_in_timeline
                                    << " px elsewhere");
    CHECK(tallest_in_panel >= 22);
}

TEST_CASE("an open trace's nested spans stack by depth: steps over operators over launches") {
    const char* path = std::getenv("PINSCOPE_SCREENSHOT");
    REQUIRE(path);
    const Png png = load(path);
    REQUIRE_MESSAGE(png.pixels, "cannot read " << path << ": " << stbi_failure_reason());
    // make_open_trace's categories, interned in this order after pinscope's own kinds: user_annotation
    // (the steps, depth 0), cpu_op (depth 1), cuda_runtime (depth 2); six steps, so six boxes of each in
    // the train loop's lane, each level on rows of its own, outermost on top.
    std::vector<std::vector<int>> levels;
    for (int level = 0; level < 3; ++level) {
        const Rgb colour = kind_colour(Theme::dark, static_cast<SpanKind>(kSpanKindCount + level));
        levels.push_back(rows_with_runs(png, colour, 6));
        MESSAGE("level " << level << ": " << levels.back().size() << " pixel rows with 6 boxes or more");
        REQUIRE(levels.back().size() >= 8);  // most of a lane's height
    }
    CHECK(levels[0].back() < levels[1].front());
    CHECK(levels[1].back() < levels[2].front());
}

TEST_CASE("a click on a device's header folds its lanes away: the open trace's kernels show on GPU 0 alone") {
    const char* path = std::getenv("PINSCOPE_SCREENSHOT");
    REQUIRE(path);
    const Png png = load(path);
    REQUIRE_MESSAGE(png.pixels, "cannot read " << path << ": " << stbi_failure_reason());
    // Bands of pixel rows holding the kernel colour: the legend's swatch, then one per kernel lane in view.
    // Unfolded, the six steps put kernels on three streams of each GPU (7 bands); GPU 1 folded leaves 4.
    int bands = 0, previous = -2;
    for (int y : rows_with_runs(png, kind_colour(Theme::dark, SpanKind::kernel), 1)) {
        if (y != previous + 1) ++bands;
        previous = y;
    }
    MESSAGE(bands << " bands of rows with kernels (the legend's swatch among them)");
    CHECK(bands == 4);
}
