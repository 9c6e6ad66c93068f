#version 330 core
// One instance per span of a lane: a quad from the span's start to its end on the view's time axis,
// never narrower than the pixel its start falls in. Times are 64-bit nanoseconds, sent as (low, high)
// words and subtracted from the view's start in integer arithmetic, so that a view of a microsecond an
// hour into a capture is placed as exactly as one at its start; only the difference becomes a float.
layout(location = 0) in uvec2 start_ns;   // low, high words
layout(location = 1) in uint duration;    // ns, or us when kind_memory has kMicroseconds
layout(location = 2) in uint kind_memory; // span kind | host memory << 8 | kMicroseconds

uniform uvec2 view_start_ns;  // low, high words
uniform float px_per_ns;
uniform vec2 target_px;       // the lane's offscreen target, in pixels

flat out float x0;
flat out float x1;
flat out uint kind;
flat out uint memory;

const uint kMicroseconds = 0x10000u;

// a - b of two 64-bit integers held as (low, high), as a float: exact while it fits 24 bits.
float difference(uvec2 a, uvec2 b) {
    uint low = a.x - b.x;
    uint high = a.y - b.y - (a.x < b.x ? 1u : 0u);
    if ((high & 0x80000000u) != 0u) {  // negative: negate the two's complement
        uint n_low = ~low + 1u;
        uint n_high = ~high + (n_low == 0u ? 1u : 0u);
        return -(float(n_high) * 4294967296.0 + float(n_low));
    }
    return float(high) * 4294967296.0 + float(low);
}

void main() {
    float length_ns = float(duration) * ((kind_memory & kMicroseconds) != 0u ? 1000.0 : 1.0);
    float from = difference(start_ns, view_start_ns) * px_per_ns;
    float to = from + length_ns * px_per_ns;
    // Off either edge the span is cut at a pixel past it: floats stay small and the cut is unseen.
    x0 = clamp(from, -1.0, target_px.x + 1.0);
    x1 = clamp(to, -1.0, target_px.x + 1.0);
    kind = kind_memory & 0xFFu;
    memory = (kind_memory >> 8) & 0xFFu;
    // The quad covers every pixel the span touches, at least the one its start is in.
    float left = floor(x0);
    float right = max(ceil(x1), left + 1.0);
    vec2 corner = vec2((gl_VertexID & 1) != 0 ? right : left, (gl_VertexID & 2) != 0 ? target_px.y : 0.0);
    gl_Position = vec4(corner / target_px * 2.0 - 1.0, 0.0, 1.0);
}
