#pragma once
// The colour of every span kind: the app's dark and high-contrast themes, and a light one for pictures
// on paper and slides. One place, because the timeline, its legend, the exported pictures and the tests
// that look for these colours in PNGs must agree on them. Plain RGB; the views convert.
#include <array>
#include <cstdint>

#include "core/trace/span.h"

namespace pinscope {

struct Rgb {
    uint8_t r = 0, g = 0, b = 0;
    bool operator==(const Rgb&) const = default;
};

// The colours of an imported trace's own categories (cpu_op, cuda_runtime, ...), which take them in turn
// by id: muted, so that pinscope's kinds (copies, kernels, waits) stay the loudest things on screen.
constexpr int kCategoryHueCount = 7;
constexpr std::array<Rgb, kCategoryHueCount> kCategoryHues = {{
    {150, 130, 190},  // lavender
    {120, 160, 140},  // sage
    {190, 150, 110},  // tan
    {110, 150, 190},  // steel
    {180, 120, 140},  // mauve
    {160, 170, 100},  // olive
    {130, 130, 130},  // grey
}};

// Where a kind takes its colour: pinscope's own kinds their own, imported categories a hue in turn.
// The GPU renderer's shader has a colour slot per value this gives (kSpanKindCount + kCategoryHueCount).
constexpr int colour_slot(SpanKind kind) {
    const int k = static_cast<int>(kind);
    return k < kSpanKindCount ? k : kSpanKindCount + (k - kSpanKindCount) % kCategoryHueCount;
}

struct SpanPalette {
    std::array<Rgb, kSpanKindCount> kind;  // by SpanKind
    Rgb pageable_stripe;  // diagonal stripes over a copy from pageable memory, and its outline
    Rgb highlight;        // outline of the hovered batch's spans, and its flow lines
    Rgb background;       // behind the lanes

    // The colour of any span kind, an imported category's included.
    constexpr Rgb of(SpanKind k) const {
        const int slot = colour_slot(k);
        return slot < kSpanKindCount ? kind[static_cast<size_t>(slot)]
                                     : kCategoryHues[static_cast<size_t>(slot - kSpanKindCount)];
    }
};

// Hues chosen so that the copy engines (blue, violet) and the SMs (green) never look alike, and the
// pageable warning colour (red) is used by nothing else.
constexpr SpanPalette kDarkPalette{
    {{
        {222, 160, 52},   // fetch: amber, the workers' CPU work
        {44, 178, 168},   // pin: teal
        {104, 106, 118},  // wait: grey, the train loop doing nothing
        {214, 92, 62},    // stage: a host thread held in a pageable copy
        {88, 104, 150},   // sync: slate, the host waiting for the GPU
        {64, 132, 232},   // h2d: blue
        {76, 186, 96},    // kernel: green
        {170, 104, 222},  // d2h: violet
        {214, 96, 170},   // tracing: rose, what recording the trace cost a thread
        {232, 214, 88},   // startup: yellow, a process getting ready (context, fresh allocations)
        {236, 236, 236},  // stopwatch: near white, what a benchmark's timer covered
    }},
    {240, 60, 60},
    {255, 255, 255},
    {24, 25, 30},
};

constexpr SpanPalette kHighContrastPalette{
    {{
        {255, 200, 0},    // fetch
        {0, 230, 230},    // pin
        {170, 170, 170},  // wait
        {255, 120, 40},   // stage
        {150, 150, 255},  // sync
        {30, 120, 255},   // h2d
        {0, 230, 0},      // kernel
        {235, 0, 235},    // d2h
        {255, 110, 190},  // tracing
        {255, 255, 80},   // startup
        {255, 255, 255},  // stopwatch
    }},
    {255, 0, 0},
    {255, 255, 0},
    {0, 0, 0},
};

// The dark palette's hues, a little darker so that they hold their own on white paper.
constexpr SpanPalette kLightPalette{
    {{
        {214, 142, 24},   // fetch
        {22, 152, 142},   // pin
        {136, 138, 150},  // wait: lighter than the rest, it is the loop doing nothing
        {200, 80, 46},    // stage
        {74, 90, 140},    // sync
        {36, 110, 216},   // h2d
        {48, 158, 72},    // kernel
        {146, 80, 204},   // d2h
        {196, 70, 146},   // tracing
        {176, 150, 20},   // startup
        {60, 60, 60},     // stopwatch
    }},
    {222, 30, 30},
    {20, 20, 24},
    {255, 255, 255},
};

}  // namespace pinscope
