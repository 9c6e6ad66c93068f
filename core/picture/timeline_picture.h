#pragma once
// A picture of a timeline for slides and handouts, drawn without a window or a GPU: the lanes of a
// trace over a time range, a row per lane with its name, spans coloured by kind as the app colours
// them, copies from pageable memory hatched, runs of spans narrower than a pixel drawn as full as they
// kept the lane busy, and a time ruler. As SVG (vector, text stays text) or PNG.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/files/output_file.h"
#include "core/trace/interval.h"
#include "core/trace/trace_store.h"

namespace pinscope {

struct PictureOptions {
    int width = 1600, height = 900;  // pixels (SVG: its viewBox)
    Interval view = {0, 0};          // the time range shown; both 0: the whole trace
    std::string title;               // a line at the top (device, config), or none
    bool dark = false;               // the app's dark theme; light suits paper and slides
};

std::string timeline_svg(const TraceStore& store, const PictureOptions& options);
// PNG bytes (RGBA). Text is drawn with a TrueType font found on the system (DejaVu Sans or Inter);
// without one the picture has no text and `warning` says so.
std::vector<uint8_t> timeline_png(const TraceStore& store, const PictureOptions& options,
                                  std::string* warning = nullptr);

enum class PictureFormat { png, svg };
// The format a file name asks for (.png, .svg), or nullopt.
std::optional<PictureFormat> picture_format_of(const std::filesystem::path& path);

// Writes the picture to `file` (core/files/output_file.h), whole or not at all. Throws std::runtime_error
// naming the file when writing fails.
void save_timeline_picture(OutputFile& file, PictureFormat format, const TraceStore& store,
                           const PictureOptions& options, std::string* warning = nullptr);
// The same by the file's extension (.svg, .png), to a path not checked before. Throws
// std::invalid_argument for another extension, OutputPathError for a path that cannot be written.
void save_timeline_picture(const std::filesystem::path& path, const TraceStore& store,
                           const PictureOptions& options, std::string* warning = nullptr);

}  // namespace pinscope
