#include "core/images/sample_jpegs.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>
#include <turbojpeg.h>

namespace pinscope {

std::vector<uint8_t> photo_like_pixels(int width, int height, uint64_t seed, int channels) {
    std::vector<uint8_t> pixels(static_cast<size_t>(width) * height * channels);
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < channels; ++c) {
                state ^= state << 13, state ^= state >> 7, state ^= state << 17;
                const int ring =
                    ((x - width / 2) * (x - width / 2) + (y - height / 3) * (y - height / 3)) / 97;
                const int value =
                    (x * (c + 1) + y * (3 - c)) / 3 + (ring % 2) * 60 + static_cast<int>(state % 24);
                pixels[(static_cast<size_t>(y) * width + x) * channels + c] =
                    static_cast<uint8_t>(value & 0xFF);
            }
    return pixels;
}

std::vector<uint8_t> photo_like_jpeg(int width, int height, uint64_t seed, int channels) {
    const std::vector<uint8_t> pixels = photo_like_pixels(width, height, seed, channels);
    tjhandle handle = tjInitCompress();
    if (!handle) throw std::runtime_error("TurboJPEG cannot start its encoder");
    unsigned char* jpeg = nullptr;
    unsigned long size = 0;
    const int format = channels == 1 ? TJPF_GRAY : channels == 4 ? TJPF_CMYK : TJPF_RGB;
    const int subsampling = channels == 1 ? TJSAMP_GRAY : TJSAMP_420;
    const int failed =
        tjCompress2(handle, pixels.data(), width, 0, height, format, &jpeg, &size, subsampling, 85, 0);
    std::vector<uint8_t> file;
    if (!failed) file.assign(jpeg, jpeg + size);
    tjFree(jpeg);
    tjDestroy(handle);
    if (failed) throw std::runtime_error("TurboJPEG could not encode a picture");
    return file;
}

void write_jpeg_folder(const std::filesystem::path& folder, int count, int width, int height) {
    std::filesystem::create_directories(folder);
    for (int i = 0; i < count; ++i) {
        const std::filesystem::path path = folder / fmt::format("img{:05d}.jpg", i);
        const std::vector<uint8_t> jpeg = photo_like_jpeg(width, height, static_cast<uint64_t>(i));
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(jpeg.data()), static_cast<std::streamsize>(jpeg.size()));
        if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", path.string()));
    }
}

std::filesystem::path sample_jpegs_folder() {
    std::filesystem::path cache;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
        cache = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home == '/')
        cache = std::filesystem::path(home) / ".cache";
    else
        cache = std::filesystem::temp_directory_path();
    return cache / "pinscope" /
           fmt::format("sample-jpegs-{}x{}x{}", kSampleJpegCount, kSampleJpegWidth, kSampleJpegHeight);
}

std::filesystem::path ensure_sample_jpegs() {
    // One maker per process: the app measures a lesson's runs on several threads, and two of them making
    // the folder at once each removed the other's half-written one (CI: "cannot write .../img00005.jpg").
    static std::mutex making;
    const std::lock_guard<std::mutex> lock(making);
    const std::filesystem::path folder = sample_jpegs_folder();
    std::error_code error;
    if (std::filesystem::is_directory(folder, error)) return folder;
    // Beside it under a name of this process's, then renamed: another process making it at the same
    // time loses the race harmlessly, and a killed first use leaves only a folder nobody reads.
    std::filesystem::path partial = folder;
    partial += fmt::format(".part-{}", getpid());
    try {
        std::filesystem::remove_all(partial);
        write_jpeg_folder(partial, kSampleJpegCount, kSampleJpegWidth, kSampleJpegHeight);
    } catch (const std::exception& e) {
        std::filesystem::remove_all(partial, error);
        throw std::runtime_error(
            fmt::format("cannot make the sample JPEGs in {}: {}", folder.parent_path().string(), e.what()));
    }
    std::filesystem::rename(partial, folder, error);
    if (error) {
        std::filesystem::remove_all(partial, error);
        if (!std::filesystem::is_directory(folder, error))
            throw std::runtime_error(fmt::format("cannot make the sample JPEGs in {}", folder.string()));
    }
    return folder;
}

}  // namespace pinscope
