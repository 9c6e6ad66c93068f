#pragma once
// JPEGs pinscope makes itself: photo-like pictures (gradients, edges and noise, so they compress and
// decode like photographs rather than flat colour), and one folder of them kept in the user's cache,
// `dataset=sample-jpegs`, so a lesson or a first try runs on real JPEG decoding on any machine without
// a dataset at hand. Tests make their folders with the same functions.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace pinscope {

// The sample folder's contents: ImageNet-sized photos, enough that a few seconds' run reads each a few
// times (the page cache keeps them, as it keeps a warm dataset's files).
constexpr int kSampleJpegCount = 256;
constexpr int kSampleJpegWidth = 500, kSampleJpegHeight = 375;

// `width` x `height` pixels of a photo-like picture, `channels` (1, 3 or 4) bytes each, from `seed`.
std::vector<uint8_t> photo_like_pixels(int width, int height, uint64_t seed, int channels = 3);

// A JPEG of a photo-like picture: RGB (channels 3), grey (1) or CMYK (4), quality 85, 4:2:0.
// Throws std::runtime_error when TurboJPEG cannot encode it.
std::vector<uint8_t> photo_like_jpeg(int width, int height, uint64_t seed, int channels = 3);

// `count` JPEGs in `folder` (made if missing): img00000.jpg, img00001.jpg, ... Throws
// std::runtime_error, naming the file, when one cannot be written.
void write_jpeg_folder(const std::filesystem::path& folder, int count, int width, int height);

// Where the sample folder lives: $XDG_CACHE_HOME/pinscope/, else ~/.cache/pinscope/, else the
// temporary folder; its name carries the count and size, so another build's sample never mixes in.
std::filesystem::path sample_jpegs_folder();

// The sample folder, made on first use (about a second on two cores): written beside it and renamed
// into place, so an interrupted first use leaves no half folder. Throws std::runtime_error with one
// line when it cannot be made.
std::filesystem::path ensure_sample_jpegs();

}  // namespace pinscope
