#version 330 core
// A quad over the lane's rectangle of the window's framebuffer (pixels, origin bottom left).
uniform vec4 rect_px;    // left, bottom, width, height
uniform vec2 screen_px;  // the framebuffer's size

void main() {
    vec2 corner = vec2((gl_VertexID & 1) != 0 ? 1.0 : 0.0, (gl_VertexID & 2) != 0 ? 1.0 : 0.0);
    vec2 at = rect_px.xy + corner * rect_px.zw;
    gl_Position = vec4(at / screen_px * 2.0 - 1.0, 0.0, 1.0);
}
