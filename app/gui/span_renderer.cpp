#include "app/gui/span_renderer.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <unordered_map>

#include "app/gui/gl_program.h"
#include "app/gui/shader_sources.h"

namespace pinscope::gui {
namespace {

// One span as the vertex shader reads it (shaders/timeline_spans.vert).
struct GpuSpan {
    uint32_t start_low, start_high;
    uint32_t duration;     // ns, or us with kMicroseconds
    uint32_t kind_memory;  // kind | memory << 8 | kMicroseconds
};
static_assert(sizeof(GpuSpan) == 16);
constexpr uint32_t kMicroseconds = 0x10000;

GpuSpan gpu_span(const Span& span) {
    const auto start = static_cast<uint64_t>(span.start);
    const auto length = static_cast<uint64_t>(std::max<TimeNs>(0, span.end - span.start));
    constexpr uint64_t kMost = std::numeric_limits<uint32_t>::max();
    // Spans over 4.3 s (a stall, a wait) are sent in microseconds: exact to within a millionth.
    const bool in_us = length > kMost;
    return {static_cast<uint32_t>(start), static_cast<uint32_t>(start >> 32),
            static_cast<uint32_t>(std::min(kMost, in_us ? length / 1000 : length)),
            static_cast<uint32_t>(colour_slot(span.kind)) | static_cast<uint32_t>(span.memory) << 8 |
                (in_us ? kMicroseconds : 0)};
}

// A lane as uploaded: what it was (to notice a different lane at the same address) and its buffer.
struct UploadedLane {
    size_t spans = 0;
    TimeNs first_start = 0, last_start = 0;
    GlBuffer buffer;
    uint64_t last_drawn = 0;  // frame
};

// Frames a lane's upload outlives its last draw: scrolled out of sight for a moment, it is not sent
// again; a closed capture's lanes are freed within seconds.
constexpr uint64_t kKeepFrames = 300;

void set_colours(GLint location, const SpanPalette& palette) {
    constexpr int kShaderKinds = 24;  // timeline_spans.frag's kind_colour[]
    constexpr int kSlots = kSpanKindCount + kCategoryHueCount;
    static_assert(kSlots <= kShaderKinds, "the span shader has a colour for every colour slot");
    float rgb[3 * kShaderKinds] = {};
    for (int k = 0; k < kSlots; ++k) {
        const Rgb c = palette.of(static_cast<SpanKind>(k));
        rgb[3 * k] = c.r / 255.f;
        rgb[3 * k + 1] = c.g / 255.f;
        rgb[3 * k + 2] = c.b / 255.f;
    }
    glUniform3fv(location, kShaderKinds, rgb);
}

}  // namespace

struct SpanRenderer::Gl {
    GlProgram spans{"timeline_spans", shader_source("timeline_spans.vert"),
                    shader_source("timeline_spans.frag")};
    GlProgram composite{"occupancy_composite", shader_source("occupancy_composite.vert"),
                        shader_source("occupancy_composite.frag")};
    GlVertexArray vertex_array;
    GlTexture target;  // RGBA16F: summed coverage, weighted colour
    GlFramebuffer framebuffer;
    int target_width = 0, target_height = 0;
    std::unordered_map<const LaneSpans*, UploadedLane> lanes;

    Gl() {
        GLuint name = 0;
        glGenVertexArrays(1, &name);
        vertex_array = GlVertexArray(name);
        glGenTextures(1, &name);
        target = GlTexture(name);
        glGenFramebuffers(1, &name);
        framebuffer = GlFramebuffer(name);
    }

    // The float target, at least w x h; checked complete once made, since some drivers render to
    // 16-bit floats but cannot blend into them.
    void ensure_target(int w, int h) {
        if (w <= target_width && h <= target_height) return;
        target_width = std::max(w, target_width);
        target_height = std::max(h, target_height);
        GLint texture = 0, framebuffer_before = 0;
        glGetIntegerv(GL_TEXTURE_BINDING_2D, &texture);
        glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer_before);
        glBindTexture(GL_TEXTURE_2D, target.get());
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA16F, target_width, target_height, 0, GL_RGBA, GL_FLOAT,
                     nullptr);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glBindFramebuffer(GL_FRAMEBUFFER, framebuffer.get());
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target.get(), 0);
        const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
        glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(framebuffer_before));
        glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(texture));
        if (status != GL_FRAMEBUFFER_COMPLETE)
            throw GlError("a 16-bit float render target is not supported here");
    }

    // The lane's buffer, uploaded on first use (or again when the lane at this address changed).
    UploadedLane& upload(const LaneSpans& lane) {
        const std::span<const Span> spans = lane.all();
        UploadedLane& up = lanes[&lane];
        if (up.buffer.get() && up.spans == spans.size() && up.first_start == spans.front().start &&
            up.last_start == spans.back().start)
            return up;
        std::vector<GpuSpan> data(spans.size());
        std::transform(spans.begin(), spans.end(), data.begin(), gpu_span);
        GLuint name = 0;
        glGenBuffers(1, &name);
        up.buffer = GlBuffer(name);
        GLint before = 0;
        glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &before);
        glBindBuffer(GL_ARRAY_BUFFER, name);
        glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(data.size() * sizeof(GpuSpan)), data.data(),
                     GL_STATIC_DRAW);
        glBindBuffer(GL_ARRAY_BUFFER, static_cast<GLuint>(before));
        up.spans = spans.size();
        up.first_start = spans.front().start;
        up.last_start = spans.back().start;
        return up;
    }
};

// One lane to draw in one frame, as the callback finds it.
struct SpanRenderer::Request {
    SpanRenderer* renderer = nullptr;
    const LaneSpans* lane = nullptr;
    size_t first = 0, count = 0;  // the visible spans, in lane->all()
    Interval range;
    double width_px = 0;
    ImVec2 min, max;  // screen rectangle of the row's canvas
    SpanPalette palette;
};

SpanRenderer::SpanRenderer() {
    try {
        if (shader_source("timeline_spans.vert").empty()) throw GlError("the shaders were not built in");
        gl_ = std::make_unique<Gl>();
        gl_->ensure_target(1024, 64);
    } catch (const GlError& e) {
        gl_.reset();
        problem_ = e.what();
    }
}

SpanRenderer::~SpanRenderer() = default;

void SpanRenderer::begin_frame() {
    requests_.clear();
    ++frame_;
    if (!gl_) return;
    std::erase_if(gl_->lanes,
                  [&](const auto& entry) { return frame_ - entry.second.last_drawn > kKeepFrames; });
}

size_t SpanRenderer::uploaded_spans() const {
    size_t total = 0;
    if (gl_)
        for (const auto& [lane, up] : gl_->lanes) total += up.spans;
    return total;
}

void SpanRenderer::draw_lane(ImDrawList* draw, const LaneSpans& lane, const PixelMapping& mapping, ImVec2 min,
                             ImVec2 max, const SpanPalette& palette) {
    if (!gl_ || lane.empty() || max.x <= min.x || max.y <= min.y) return;
    const std::span<const Span> spans = lane.all();
    const size_t first = std::min(lane.first_touching(mapping.range), spans.size());
    const auto end = std::lower_bound(spans.begin() + static_cast<std::ptrdiff_t>(first), spans.end(),
                                      mapping.range.end, [](const Span& s, TimeNs t) { return s.start < t; });
    const size_t count = static_cast<size_t>(end - spans.begin()) - first;
    if (count == 0) return;
    auto request = std::make_unique<Request>(
        Request{this, &lane, first, count, mapping.range, mapping.width_px, min, max, palette});
    draw->AddCallback(&SpanRenderer::run_request, request.get());
    draw->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
    requests_.push_back(std::move(request));
}

void SpanRenderer::run_request(const ImDrawList*, const ImDrawCmd* command) {
    const auto* request = static_cast<const Request*>(command->UserCallbackData);
    request->renderer->render(*request, command->ClipRect);
}

void SpanRenderer::render(const Request& r, ImVec4 clip) {
    if (!gl_) return;
    const ImDrawData* data = ImGui::GetDrawData();
    const ImVec2 scale = data->FramebufferScale, origin = data->DisplayPos;
    const float screen_w = data->DisplaySize.x * scale.x, screen_h = data->DisplaySize.y * scale.y;
    // The row in framebuffer pixels, origin bottom left.
    const float left = std::round((r.min.x - origin.x) * scale.x);
    const int width = static_cast<int>(std::ceil((r.max.x - r.min.x) * scale.x));
    const int height = static_cast<int>(std::ceil((r.max.y - r.min.y) * scale.y));
    const float bottom = std::round(screen_h - (r.min.y - origin.y) * scale.y - static_cast<float>(height));
    // What of it the draw list's clip shows: a row half scrolled out of the window shows half.
    const float clip_left = std::max(0.f, (clip.x - origin.x) * scale.x);
    const float clip_top = std::max(0.f, (clip.y - origin.y) * scale.y);
    const float clip_right = std::min(screen_w, (clip.z - origin.x) * scale.x);
    const float clip_bottom = std::min(screen_h, (clip.w - origin.y) * scale.y);
    if (width <= 0 || height <= 0 || clip_right <= clip_left || clip_bottom <= clip_top) return;
    try {
        gl_->ensure_target(width, height);
    } catch (const GlError& e) {
        problem_ = e.what();
        gl_.reset();  // the next frames draw with draw lists
        return;
    }
    UploadedLane& up = gl_->upload(*r.lane);
    up.last_drawn = frame_;
    GLint framebuffer_before = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer_before);

    // 1. Sum the visible spans' coverage into the float target.
    glBindFramebuffer(GL_FRAMEBUFFER, gl_->framebuffer.get());
    glViewport(0, 0, width, height);
    glDisable(GL_SCISSOR_TEST);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFunc(GL_ONE, GL_ONE);
    glUseProgram(gl_->spans.id());
    const auto start = static_cast<uint64_t>(r.range.start);
    glUniform2ui(gl_->spans.uniform("view_start_ns"), static_cast<GLuint>(start),
                 static_cast<GLuint>(start >> 32));
    glUniform1f(gl_->spans.uniform("px_per_ns"),
                static_cast<float>(r.width_px * scale.x / static_cast<double>(r.range.length())));
    glUniform2f(gl_->spans.uniform("target_px"), static_cast<float>(width), static_cast<float>(height));
    set_colours(gl_->spans.uniform("kind_colour"), r.palette);
    const Rgb stripe = r.palette.pageable_stripe;
    glUniform3f(gl_->spans.uniform("pageable_stripe"), stripe.r / 255.f, stripe.g / 255.f, stripe.b / 255.f);
    glUniform1ui(gl_->spans.uniform("pageable_memory"), static_cast<GLuint>(HostMemory::pageable));
    glUniform1ui(gl_->spans.uniform("hatched_kinds"),
                 1u << static_cast<int>(SpanKind::h2d) | 1u << static_cast<int>(SpanKind::d2h));
    glBindVertexArray(gl_->vertex_array.get());
    glBindBuffer(GL_ARRAY_BUFFER, up.buffer.get());
    // Culling is where the attributes start: the first visible span is instance 0.
    const auto attribute = [&](GLuint location, GLint size, size_t field) {
        glEnableVertexAttribArray(location);
        glVertexAttribIPointer(location, size, GL_UNSIGNED_INT, sizeof(GpuSpan),
                               reinterpret_cast<const void*>(r.first * sizeof(GpuSpan) + field));
        glVertexAttribDivisor(location, 1);
    };
    attribute(0, 2, offsetof(GpuSpan, start_low));
    attribute(1, 1, offsetof(GpuSpan, duration));
    attribute(2, 1, offsetof(GpuSpan, kind_memory));
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, static_cast<GLsizei>(r.count));

    // 2. Lay the sums over the row on the window's framebuffer.
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(framebuffer_before));
    glViewport(0, 0, static_cast<GLsizei>(screen_w), static_cast<GLsizei>(screen_h));
    glEnable(GL_SCISSOR_TEST);
    glScissor(static_cast<GLint>(clip_left), static_cast<GLint>(screen_h - clip_bottom),
              static_cast<GLsizei>(clip_right - clip_left), static_cast<GLsizei>(clip_bottom - clip_top));
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(gl_->composite.id());
    glUniform4f(gl_->composite.uniform("rect_px"), left, bottom, static_cast<float>(width),
                static_cast<float>(height));
    glUniform2f(gl_->composite.uniform("screen_px"), screen_w, screen_h);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, gl_->target.get());
    glUniform1i(gl_->composite.uniform("weighted"), 0);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    // The backend's ResetRenderState, queued after this callback, restores its program, buffers, blend,
    // scissor and viewport.
}

}  // namespace pinscope::gui
