// Every page of every lesson in presentation mode at projector sizes, drawn into an ImGui frame without a
// window: the question, each choice and the reveal button, the answer and its promise line fit the panel
// whole, and no line breaks inside a word (a number such as "19.0k" or "3.00x" stays whole).
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include <imgui.h>

#include "app/gui/layout_measure.h"
#include "app/gui/lesson_panel.h"
#include "app/gui/model/word_wrap.h"
#include "app/gui/ui_style.h"
#include "core/io/metrics_json.h"
#include "tests/headless_imgui.h"

using namespace pinscope;
using namespace pinscope::gui;
using namespace pinscope::testing;
using nlohmann::json;

namespace {

// Metrics as wide as real ones read: rates in the hundreds of thousands, shares, bandwidths, bytes.
json wide_metrics(const json& in, const std::string& key = "") {
    if (in.is_object()) {
        json out = json::object();
        for (const auto& [k, v] : in.items()) out[k] = wide_metrics(v, k);
        return out;
    }
    if (!in.is_number()) return in;
    if (key.ends_with("per_s")) return 123456.7;
    if (key.ends_with("gbps")) return 53.45;
    if (key.ends_with("bytes_max")) return 123456789.0;
    if (key.ends_with("_us")) return 1234.5;
    return 0.4567;
}

json fake_measure(const PipelineConfig&) {
    Metrics m;
    for (const SpanKind kind : {SpanKind::fetch, SpanKind::pin, SpanKind::h2d, SpanKind::kernel})
        m.latencies.push_back(StageLatency{.kind = kind});
    return wide_metrics(metrics_json(m));
}

}  // namespace

TEST_CASE("lines break at spaces only, never inside a number") {
    const TextWidth per_char = [](std::string_view s) { return static_cast<float>(s.size()); };
    const auto lines = wrap_at_spaces("stall 19.0k to 3.00x of it", 8, per_char);
    CHECK(lines == std::vector<std::string>{"stall", "19.0k to", "3.00x of", "it"});
    CHECK(wrap_at_spaces("a\n\nb  c", 10, per_char) == std::vector<std::string>{"a", "", "b c"});
    CHECK(wrap_at_spaces("unbreakable", 4, per_char) == std::vector<std::string>{"unbreakable"});
}

TEST_CASE("every page of every lesson fits the presentation panel at 1280x720 and 1600x900") {
    struct Screen {
        float width, height;
    };
    for (const Screen screen : {Screen{1280, 720}, Screen{1600, 900}}) {
        CAPTURE(screen.width);
        HeadlessImGui imgui(screen.width, screen.height);
        UiStyle style;
        style.apply(UiSettings{1.5f, false, kDefaultFontFile});  // presentation mode's text size
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
        AppState state{TraceStore{}};  // no pipeline: the run buttons change nothing
        for (size_t index = 0; index < builtin_lessons().size(); ++index) {
            LessonPanel panel;
            panel.open(state, index);
            CAPTURE(builtin_lessons()[index].slug);
            panel.player().reveal(0, fake_measure);
            while (panel.player().measuring()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            INFO(panel.player().error());
            REQUIRE(panel.player().outcome());
            for (int page = 0; page < panel.player().pages(); ++page) {
                CAPTURE(page);
                panel.player().go_to(page);
                // The type steps down a frame at a time: enough frames to reach the smallest size.
                for (int frame = 0; frame < 30; ++frame) {
                    ImGui::NewFrame();
                    const Layout layout =
                        lay_out(measure_layout(ImVec2(screen.width, screen.height), 1, false));
                    panel.draw(state, Theme::dark, layout.controls, true);
                    ImGui::EndFrame();
                }
                CHECK(panel.fit().essentials_fit);
                CHECK(panel.fit().words_whole);
                MESSAGE("scale " << panel.fit().scale
                                 << std::string(panel.fit().fits ? "" : ", the panel scrolls"));
            }
        }
    }
}
