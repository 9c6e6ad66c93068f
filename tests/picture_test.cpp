// Pictures of a timeline: the SVG names every lane and marks pageable copies, the PNG is the size asked
// for and shows each span in its kind's colour in its lane's row, folds are as full as their spans were
// busy, and a store of millions of spans costs pixels, not spans.
#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>

// The decoder, compiled into this test alone (static: Debian's libstb defines the same names).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>
#pragma GCC diagnostic pop

#include "core/picture/picture_layout.h"
#include "core/picture/span_palette.h"
#include "core/picture/svg_canvas.h"
#include "core/picture/timeline_picture.h"
#include "core/trace/lanes.h"
#include "core/trace/trace_store.h"
#include "scratch.h"
#include "tests/within.h"

using namespace pinscope;
using pinscope::testing::within;

namespace {

constexpr TimeNs kBase = 1'700'000'000'123'456'789;  // a steady_clock reading of a long-running machine

// Like capture_test's store: overlapping copies, some from pageable memory, a span that ends before it
// starts, a kernel with a name that needs escaping, a lane that never recorded.
TraceStore varied_store(bool with_pageable = true) {
    LaneRegistry registry;
    const LaneId main = registry.lane(LaneRole::main);
    const LaneId worker = registry.lane(LaneRole::worker, 3);
    const LaneId h2d = registry.lane(LaneRole::h2d, 0);
    const LaneId kernel = registry.lane(LaneRole::kernel, 0);
    registry.lane(LaneRole::d2h, 1);  // a lane that never recorded
    TraceStore store(TraceLimits{SIZE_MAX, SIZE_MAX});
    store.set_lanes(registry.snapshot());
    std::mt19937_64 random(7);
    const uint32_t gemm = store.intern("sm90_xmma_gemm_bf16 \"quoted\" <&> \xce\xbb");
    for (int b = 0; b < 500; ++b) {
        const TimeNs t = kBase + b * 10'000 + static_cast<TimeNs>(random() % 300);
        const HostMemory memory = with_pageable && b % 3 == 0 ? HostMemory::pageable : HostMemory::pinned;
        store.add(Span{t, t + 4'000, b, 0, worker, SpanKind::fetch});
        store.add(Span{t + 4'000, t + 4'500, kNoBatch, 0, main, SpanKind::wait});
        store.add(Span{t + 4'500, t + 6'500, b, (1ull << 40) + b, h2d, SpanKind::h2d, memory});
        store.add(Span{t + 5'000, t + 7'000, b, 77, h2d, SpanKind::h2d, HostMemory::pinned});  // overlaps
        store.add(Span{t + 6'500, t + 9'000, b, 0, kernel, SpanKind::kernel, HostMemory::none,
                       b % 2 ? gemm : kNoName});
    }
    store.add(Span{kBase + 20, kBase + 10, 3, 0, main, SpanKind::sync});  // end before start
    return store;
}

// A train loop and an H2D lane of ten 1 ms pinned copies, one every 2 ms: wide enough to draw one by one.
TraceStore copies_store() {
    LaneRegistry registry;
    const LaneId main = registry.lane(LaneRole::main);
    const LaneId h2d = registry.lane(LaneRole::h2d, 0);
    TraceStore store;
    store.set_lanes(registry.snapshot());
    for (int b = 0; b < 10; ++b) {
        const TimeNs t = kBase + b * 2 * kNsPerMs;
        store.add(Span{t, t + kNsPerMs, b, 1 << 20, h2d, SpanKind::h2d, HostMemory::pinned});
        store.add(Span{t + kNsPerMs, t + 2 * kNsPerMs, kNoBatch, 0, main, SpanKind::wait});
    }
    return store;
}

PictureOptions sized(int width, int height) {
    PictureOptions options;
    options.width = width;
    options.height = height;
    return options;
}

PictureOptions titled(std::string title) {
    PictureOptions options;
    options.title = std::move(title);
    return options;
}

PictureOptions viewing(Interval view) {
    PictureOptions options;
    options.view = view;
    return options;
}

size_t count(const std::string& text, const std::string& needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size()))
        ++n;
    return n;
}

struct Image {
    int width = 0, height = 0;
    std::unique_ptr<unsigned char, void (*)(void*)> pixels{nullptr, stbi_image_free};

    Rgb at(int x, int y) const {
        const unsigned char* p = pixels.get() + (static_cast<size_t>(y) * width + x) * 3;
        return {p[0], p[1], p[2]};
    }
};

Image decode(const std::vector<uint8_t>& png) {
    Image image;
    int channels = 0;
    image.pixels.reset(stbi_load_from_memory(png.data(), static_cast<int>(png.size()), &image.width,
                                             &image.height, &channels, 3));
    return image;
}

const PictureRow& row_of(const PictureLayout& layout, LaneId lane) {
    for (const PictureRow& row : layout.rows)
        if (row.lane == lane) return row;
    throw std::logic_error("no row for the lane");
}

// Pixels of exactly `colour` in the columns [x0, x1) of a row.
int pixels_of(const Image& image, Rgb colour, int x0, int x1, const PictureRow& row) {
    int n = 0;
    for (int y = static_cast<int>(row.top); y < static_cast<int>(row.bottom); ++y)
        for (int x = x0; x < x1; ++x) n += image.at(x, y) == colour;
    return n;
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("the SVG is one document that names every lane once") {
    const TraceStore store = varied_store();
    const std::string svg = timeline_svg(store, titled("H100 <sim> & friends"));
    CHECK(svg.starts_with("<svg "));
    CHECK(svg.ends_with("</svg>\n"));
    CHECK(count(svg, "<svg") == 1);
    CHECK(count(svg, "<text") == count(svg, "</text>"));
    for (const LaneInfo& lane : store.lanes()) CHECK(count(svg, ">" + lane.name + "</text>") == 1);
    CHECK(svg.find("H100 &lt;sim&gt; &amp; friends") != std::string::npos);
    CHECK(svg.find("<sim>") == std::string::npos);
    CHECK(svg.find("DejaVu Sans, Inter, sans-serif") != std::string::npos);
}

TEST_CASE("the SVG hatches copies only when one came from pageable memory") {
    const std::string with = timeline_svg(varied_store(true), {});
    const std::string without = timeline_svg(varied_store(false), {});
    CHECK(count(with, "<pattern id=\"pageable-stripes\"") == 1);
    CHECK(count(with, "url(#pageable-stripes)") > 0);
    CHECK(with.find("from pageable memory") != std::string::npos);  // the legend explains the stripes
    CHECK(without.find("<pattern") == std::string::npos);
    CHECK(without.find("pageable") == std::string::npos);
}

TEST_CASE("text in the SVG is escaped, and bytes that are not UTF-8 are replaced") {
    CHECK(xml_escape("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
    CHECK(xml_escape("\xce\xbbx") == "\xce\xbbx");
    CHECK(xml_escape("bad \xff byte\x01") == "bad \xEF\xBF\xBD byte\xEF\xBF\xBD");
    CHECK(xml_escape("cut \xe2\x82") == "cut \xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST_CASE("the PNG is the size asked for, on the theme's background") {
    const TraceStore store = varied_store();
    for (bool dark : {false, true}) {
        std::string warning;
        PictureOptions options = sized(640, 360);
        options.dark = dark;
        const Image image = decode(timeline_png(store, options, &warning));
        REQUIRE(image.pixels);
        CHECK(image.width == 640);
        CHECK(image.height == 360);
        CHECK(image.at(639, 359) == (dark ? kDarkPalette : kLightPalette).background);
        if (!PictureFont::system()) MESSAGE("no font: " << warning);
    }
}

TEST_CASE("a copy is drawn in the H2D colour in the H2D lane's row, at its time") {
    const TraceStore store = copies_store();
    const PictureOptions options = sized(1200, 500);
    const PictureLayout layout = layout_picture(store, options, PictureFont::system());
    const Image image = decode(timeline_png(store, options));
    REQUIRE(image.pixels);
    const Rgb h2d = kLightPalette.kind[static_cast<int>(SpanKind::h2d)];
    const Span& copy = store.spans(1)[3];
    const int middle = static_cast<int>(layout.mapping.x_of((copy.start + copy.end) / 2));
    const PictureRow& row = row_of(layout, copy.lane);
    // Most of the row's height at that x (a label may cover some of it), and nothing in the gap after.
    CHECK(pixels_of(image, h2d, middle, middle + 1, row) > (row.bottom - row.top) / 2);
    CHECK(image.at(middle, static_cast<int>(row.top + (row.bottom - row.top) * 0.8)) == h2d);
    const int gap = static_cast<int>(layout.mapping.x_of(copy.end + kNsPerMs / 2));
    CHECK(pixels_of(image, h2d, gap, gap + 1, row) == 0);
    const PictureRow& loop = row_of(layout, 0);
    CHECK(pixels_of(image, h2d, middle, middle + 1, loop) == 0);
}

TEST_CASE("spans too short to draw fill their fold as much as they kept the lane busy") {
    // One lane: for 1 ms, 300 ns spans every 1,000 ns (30% busy), then for 1 ms 1,000 ns spans back to
    // back (100% busy). At about 1.5 us a pixel, every span is narrower than a pixel.
    LaneRegistry registry;
    const LaneId h2d = registry.lane(LaneRole::h2d, 0);
    TraceStore store;
    store.set_lanes(registry.snapshot());
    std::vector<Span> spans;
    for (int i = 0; i < 1000; ++i)
        spans.push_back(Span{kBase + i * 1'000, kBase + i * 1'000 + 300, i, 0, h2d, SpanKind::h2d});
    for (int i = 0; i < 1000; ++i)
        spans.push_back(
            Span{kBase + kNsPerMs + i * 1'000, kBase + kNsPerMs + (i + 1) * 1'000, i, 0, h2d, SpanKind::h2d});
    store.adopt_lane(h2d, std::move(spans));

    const PictureOptions options = sized(1600, 400);
    const PictureLayout layout = layout_picture(store, options, PictureFont::system());
    const PictureRow& row = row_of(layout, h2d);
    REQUIRE(!row.boxes.empty());
    const double split = layout.mapping.x_of(kBase + kNsPerMs);
    for (const LaneBox& box : row.boxes) {
        CHECK(box.folded());
        if (box.x1 < split - 1) CHECK(box.occupancy == within(0.3, 0.1));
        if (box.x0 > split + 1) CHECK(box.occupancy == within(1.0, 0.05));
    }

    const Image image = decode(timeline_png(store, options));
    REQUIRE(image.pixels);
    const Rgb colour = kLightPalette.kind[static_cast<int>(SpanKind::h2d)];
    const int quarter = static_cast<int>((split - layout.mapping.left) / 4);
    const int at_30 = pixels_of(image, colour, static_cast<int>(layout.mapping.left) + quarter,
                                static_cast<int>(split) - quarter, row);
    const int at_100 = pixels_of(image, colour, static_cast<int>(split) + quarter,
                                 static_cast<int>(layout.mapping.right()) - quarter, row);
    MESSAGE("coloured pixels: " << at_30 << " where 30% busy, " << at_100 << " where 100% busy");
    CHECK(at_100 > 0);
    CHECK(at_30 > at_100 / 6);
    CHECK(at_30 < at_100 / 2);
}

TEST_CASE("two million spans cost the picture's pixels, not the spans") {
    LaneRegistry registry;
    std::vector<LaneId> lanes = {registry.lane(LaneRole::main), registry.lane(LaneRole::worker, 0),
                                 registry.lane(LaneRole::h2d, 0), registry.lane(LaneRole::kernel, 0)};
    TraceStore store(TraceLimits{SIZE_MAX, SIZE_MAX});
    store.set_lanes(registry.snapshot());
    const SpanKind kinds[] = {SpanKind::wait, SpanKind::fetch, SpanKind::h2d, SpanKind::kernel};
    for (size_t l = 0; l < lanes.size(); ++l) {
        std::vector<Span> spans;
        spans.reserve(500'000);
        for (int i = 0; i < 500'000; ++i) {
            const TimeNs t = kBase + i * 2'000 + static_cast<TimeNs>(l) * 300;
            spans.push_back(Span{t, t + 700 + (i % 7) * 100, i, 0, lanes[l], kinds[l],
                                 i % 5 ? HostMemory::pinned : HostMemory::pageable});
        }
        store.adopt_lane(lanes[l], std::move(spans));
    }
    REQUIRE(store.span_count() == 2'000'000);

    PictureOptions options = sized(1600, 900);
    options.title = "two million spans";
    const auto start = std::chrono::steady_clock::now();
    const std::vector<uint8_t> png = timeline_png(store, options);
    const auto png_done = std::chrono::steady_clock::now();
    const std::string svg = timeline_svg(store, options);
    const auto svg_done = std::chrono::steady_clock::now();
    const auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
    MESSAGE("2,000,000 spans: PNG in " << ms(png_done - start) << " ms (" << png.size() / 1024
                                       << " KiB), SVG in " << ms(svg_done - png_done) << " ms ("
                                       << svg.size() / 1024 << " KiB)");

    const PictureLayout layout = layout_picture(store, options, PictureFont::system());
    for (const PictureRow& row : layout.rows) {
        CHECK(!row.boxes.empty());
        CHECK(row.boxes.size() <= static_cast<size_t>(layout.mapping.width));  // at most one a pixel
    }
    CHECK(decode(png).width == 1600);
    CHECK(svg.size() < 4'000'000);
}

TEST_CASE("pictures are saved as SVG or PNG by their extension, and nothing else") {
    const TraceStore store = copies_store();
    const std::filesystem::path dir = testing::scratch_folder();
    const std::filesystem::path svg = dir / "pinscope_picture_test.svg",
                                png = dir / "pinscope_picture_test.png";
    save_timeline_picture(svg, store, {});
    save_timeline_picture(png, store, {});
    CHECK(read_file(svg).starts_with("<svg"));
    CHECK(read_file(png).starts_with("\x89PNG\r\n\x1a\n"));
    std::filesystem::remove(svg);
    std::filesystem::remove(png);
    const std::filesystem::path text = dir / "pinscope_picture_test.txt";
    CHECK_THROWS_AS(save_timeline_picture(text, store, {}), std::invalid_argument);
    CHECK(!std::filesystem::exists(text));
}

TEST_CASE("a view that ends before it starts, or a picture of no size, is refused") {
    const TraceStore store = copies_store();
    CHECK_THROWS_AS(timeline_svg(store, viewing({kBase + 10, kBase + 5})), std::invalid_argument);
    CHECK_THROWS_AS(timeline_png(store, sized(0, 100)), std::invalid_argument);
    CHECK_NOTHROW(timeline_svg(TraceStore(), {}));  // an empty store: a ruler and a legend-less page
}

TEST_CASE("the ruler counts from the view's start in steps of 1, 2 or 5") {
    const TraceStore store = copies_store();
    const PictureLayout layout =
        layout_picture(store, viewing({kBase, kBase + 20 * kNsPerMs}), PictureFont::system());
    REQUIRE(layout.ticks.size() >= 3);
    CHECK(layout.ticks[0].label == "0 ms");
    const std::string second = layout.ticks[1].label;
    CHECK((second == "1 ms" || second == "2 ms" || second == "5 ms"));
    CHECK(layout.ticks[0].x == doctest::Approx(layout.mapping.left).epsilon(0.001));
}
