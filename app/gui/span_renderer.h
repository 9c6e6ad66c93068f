#pragma once
// The timeline's spans drawn on the GPU (shaders/timeline_spans.*, occupancy_composite.*): a lane's
// spans are uploaded once, 16 bytes each, and every frame draws the visible ones as instanced quads
// that the vertex shader places from the view's range; each pixel sums the share of its time its spans
// cover into a float target, and the composite lays that over the lane as opaque as the lane was busy.
// So a frame's CPU cost does not grow with the spans in view: ten million cost two binary searches.
//
// It draws from inside Dear ImGui's OpenGL 3 backend through a draw-list callback, at the lane's place
// in the draw order (over the row's stripe, under the labels), then asks the backend to restore its
// state. Only lanes that no longer change are uploaded (a capture, a finished trace); a live run's
// lanes, which grow every frame, keep the draw-list path. Where the shaders do not compile (no
// OpenGL 3.3), available() is false and problem() says why: the timeline falls back to draw lists.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/gui/model/span_palette.h"
#include "app/gui/model/timeline_viewport.h"
#include "core/trace/lane_spans.h"

namespace pinscope::gui {

class SpanRenderer {
  public:
    // Compiles the shaders in the current OpenGL context. Never throws: see available().
    SpanRenderer();
    ~SpanRenderer();
    SpanRenderer(const SpanRenderer&) = delete;
    SpanRenderer& operator=(const SpanRenderer&) = delete;

    bool available() const { return gl_ != nullptr; }
    const std::string& problem() const { return problem_; }

    // Once per frame, before the timeline draws: forgets the last frame's requests, and frees the
    // uploads of lanes that no frame has drawn for a while (a closed capture's).
    void begin_frame();
    // Queues `lane`'s spans in the mapping's range for drawing over the screen rectangle [min, max]
    // (the canvas of one row; x = min.x is the mapping's x = 0), at this point of `draw`'s commands.
    // The lane must not change while it is uploaded (it is keyed by address and contents' bounds).
    void draw_lane(ImDrawList* draw, const LaneSpans& lane, const PixelMapping& mapping, ImVec2 min,
                   ImVec2 max, const SpanPalette& palette);
    // Spans uploaded to the GPU, over every lane kept.
    size_t uploaded_spans() const;

  private:
    struct Gl;
    struct Request;
    static void run_request(const ImDrawList* list, const ImDrawCmd* command);
    void render(const Request& request, ImVec4 clip);

    std::unique_ptr<Gl> gl_;
    std::string problem_;
    std::vector<std::unique_ptr<Request>> requests_;  // this frame's; the callbacks hold their addresses
    uint64_t frame_ = 0;
};

}  // namespace pinscope::gui
