#version 330 core
// Each pixel adds how much of its width the span covers, with the span's colour weighted alike, into
// a float target: the spans of one pixel sum to the share of its time the lane was busy (a pixel
// holding a thousand 1% spans reads 10 busy, not solid), and the colour to their weighted mix.
flat in float x0;
flat in float x1;
flat in uint kind;
flat in uint memory;

uniform vec3 kind_colour[24];
uniform vec3 pageable_stripe;
uniform uint pageable_memory;  // HostMemory::pageable
uniform uint hatched_kinds;    // a bit per span kind: the copies, hatched when from pageable memory

out vec4 weighted;  // rgb * coverage, coverage

void main() {
    float left = floor(gl_FragCoord.x);
    float coverage = clamp(min(x1, left + 1.0) - max(x0, left), 0.0, 1.0);
    vec3 colour = kind_colour[min(kind, 23u)];
    // Copies from pageable memory are hatched, as the draw-list path does.
    if (memory == pageable_memory && ((hatched_kinds >> kind) & 1u) != 0u &&
        mod(gl_FragCoord.x + gl_FragCoord.y, 6.0) < 1.5)
        colour = pageable_stripe;
    weighted = vec4(colour * coverage, coverage);
}
