// The app's views drawn into an ImGui frame without a window or a GPU: what they put on screen.
#include <doctest/doctest.h>

#include <algorithm>

#include <imgui.h>

#include "app/gui/controls_window.h"
#include "app/gui/layout_measure.h"
#include "app/gui/model/metric_tiles.h"
#include "app/gui/timeline_legend.h"
#include "app/gui/ui_style.h"
#include "tests/headless_imgui.h"

using namespace pinscope;
using namespace pinscope::gui;
using namespace pinscope::testing;

TEST_CASE("the Controls window draws a widget for every knob of the table") {
    HeadlessImGui imgui(600, 4000);
    AppState state(TraceStore{});  // no pipeline: the widgets are drawn, disabled
    ControlsWindow controls;
    bool collapsed = false;
    for (int frame = 0; frame < 2; ++frame) {  // the first frame lays out, the second is as a user sees it
        ImGui::NewFrame();
        controls.draw(state, Theme::dark, Rect{0, 0, 600, 4000}, collapsed);
        ImGui::Render();
    }
    const std::vector<std::string_view>& drawn = controls.drawn_knobs();
    for (const Knob& knob : knobs()) {
        CAPTURE(knob.key);
        CHECK(std::count(drawn.begin(), drawn.end(), knob.key) == 1);
    }
}

TEST_CASE("at projector sizes every tile title is whole, every legend entry shows, and six lanes fit") {
    struct Screen {
        float width, height, scale;
    };
    for (const Screen screen : {Screen{1280, 720, 2.0f}, Screen{1600, 900, 1.5f}}) {
        for (const bool high_contrast : {false, true}) {
            for (const bool collapsed : {true, false}) {
                CAPTURE(screen.width);
                CAPTURE(screen.scale);
                CAPTURE(high_contrast);
                CAPTURE(collapsed);
                HeadlessImGui imgui(screen.width, screen.height);
                UiStyle style;
                style.apply(UiSettings{screen.scale, high_contrast, kDefaultFontFile});
                unsigned char* pixels = nullptr;
                int w = 0, h = 0;
                ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
                ImGui::NewFrame();
                const LayoutInput in = measure_layout(ImVec2(screen.width, screen.height), 1, collapsed);
                const Layout layout = lay_out(in);
                REQUIRE(layout.tiles.size() == metric_tiles().size());
                const float room = layout.metrics.w - 2 * in.padding;
                for (size_t i = 0; i < layout.tiles.size(); ++i) {
                    const MetricTile& tile = metric_tiles()[i];
                    const TilePlace& place = layout.tiles[i];
                    CAPTURE(tile.title);
                    CHECK(ImGui::CalcTextSize(tile.title).x <= place.w);  // whole, not clipped
                    CHECK(ImGui::CalcTextSize(tile.widest).x <= place.w);
                    CHECK(place.x + place.w <= room + 0.5f);  // inside the window
                    CHECK(place.row < layout.tile_rows);
                }
                const float legend_room = layout.timeline.w - 2 * in.padding;
                for (float entry : legend_entry_widths()) CHECK(entry <= legend_room);
                CHECK(layout.legend_lines ==
                      wrapped_lines(legend_entry_widths(), legend_room, legend_spacing()));
                if (collapsed) CHECK(layout.lanes_visible >= 6);
                CHECK(layout.controls.w <= 0.4f * screen.width);
                ImGui::EndFrame();
            }
        }
    }
}
