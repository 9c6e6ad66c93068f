#version 330 core
// Lays the summed spans over the lane: as opaque as the lane was busy in each pixel, in the mix of
// the colours that kept it busy. A pixel the spans fill is their colour; one they fill 20% of is a
// fifth of the way from the background to it.
uniform sampler2D weighted;
uniform vec4 rect_px;  // left, bottom, width, height

out vec4 colour;

void main() {
    vec4 sum = texelFetch(weighted, ivec2(gl_FragCoord.xy - rect_px.xy), 0);
    float busy = min(sum.a, 1.0);
    colour = sum.a > 0.0 ? vec4(sum.rgb / sum.a, busy) : vec4(0.0);
}
