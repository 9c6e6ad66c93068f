#include "core/pipeline/image_folder_dataset.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "core/config/knob_field.h"
#include "core/images/image_decode.h"
#include "core/images/resized_crop.h"
#include "core/images/sample_jpegs.h"
#include "core/trace/clock.h"
#include "core/units/half_float.h"

namespace pinscope {
namespace {

namespace fs = std::filesystem;

// Files larger than this are not images a loader should read whole into memory.
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{256} << 20;
// How many files a sample tries before it gives up (every one of them unreadable).
constexpr size_t kMaxTries = 16;

std::vector<uint8_t> read_file(const std::string& path) {
    std::error_code error;
    const std::uintmax_t size = fs::file_size(path, error);
    if (error) throw ImageError("cannot be read (" + error.message() + ")");
    if (size > kMaxFileBytes) throw ImageError(fmt::format("is {} bytes, more than an image may be", size));
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> bytes(static_cast<size_t>(size));
    if (!in || !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
        throw ImageError("cannot be read");
    return bytes;
}

}  // namespace

std::optional<std::string> dataset_folder(const PipelineConfig& config) {
    if (std::optional<std::string> folder = config.image_folder()) return folder;
    if (config.dataset != PipelineConfig::kSampleJpegs) return std::nullopt;
    try {
        return ensure_sample_jpegs().string();
    } catch (const std::runtime_error& e) {
        throw std::invalid_argument(fmt::format("dataset {}: {}", PipelineConfig::kSampleJpegs, e.what()));
    }
}

std::shared_ptr<const ImageFolderListing> list_image_folder(const std::string& folder) {
    // A reconfiguration (a slider drag) builds a new dataset each time: the last listing is kept.
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const ImageFolderListing>> listings;
    std::lock_guard lock(mutex);
    if (auto it = listings.find(folder); it != listings.end()) return it->second;

    std::error_code error;
    if (!fs::is_directory(folder, error))
        throw std::invalid_argument(
            fmt::format("dataset folder:{}: {}", folder,
                        fs::exists(folder, error) ? "is not a folder" : "no such folder"));
    auto listing = std::make_shared<ImageFolderListing>();
    listing->folder = folder;
    // Files directly in the folder, then one level of class subfolders, as ImageFolder finds them.
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
        if (entry.is_regular_file(error) && has_image_extension(entry.path().filename().string())) {
            listing->files.push_back(entry.path().string());
        } else if (entry.is_directory(error)) {
            for (const fs::directory_entry& inner : fs::directory_iterator(entry.path(), error))
                if (inner.is_regular_file(error) && has_image_extension(inner.path().filename().string()))
                    listing->files.push_back(inner.path().string());
        }
    }
    if (error)
        throw std::invalid_argument(
            fmt::format("dataset folder:{}: cannot be listed ({})", folder, error.message()));
    if (listing->files.empty())
        throw std::invalid_argument(fmt::format(
            "dataset folder:{}: holds no .jpg, .jpeg or .png files, directly or in class subfolders",
            folder));
    std::sort(listing->files.begin(), listing->files.end());
    listings[folder] = listing;
    return listing;
}

void ImageFolderTally::decoded(TimeNs ns) {
    std::lock_guard lock(mutex_);
    const float us = static_cast<float>(ns) * 1e-3f;
    // Past the cap, each new duration takes the place of the oldest: the percentiles are the recent ones.
    if (decode_us_.size() < kMaxDurations)
        decode_us_.push_back(us);
    else
        decode_us_[static_cast<size_t>(decoded_) % kMaxDurations] = us;
    ++decoded_;
}

void ImageFolderTally::skipped(const std::string& file, const std::string& problem) {
    std::lock_guard lock(mutex_);
    if (skipped_++ == 0) first_skip_ = file + ": " + problem;
}

std::string ImageFolderTally::first_skip() const {
    std::lock_guard lock(mutex_);
    return first_skip_;
}

DatasetReport ImageFolderTally::report() const {
    std::vector<float> durations;
    DatasetReport report;
    {
        std::lock_guard lock(mutex_);
        durations = decode_us_;
        report = DatasetReport{decoded_, skipped_, first_skip_};
    }
    const auto percentile = [&](double p) {
        if (durations.empty()) return 0.0;
        const auto at =
            durations.begin() + static_cast<std::ptrdiff_t>(p * static_cast<double>(durations.size() - 1));
        std::nth_element(durations.begin(), at, durations.end());
        return static_cast<double>(*at);
    };
    report.decode_p50_us = percentile(0.50);
    report.decode_p99_us = percentile(0.99);
    return report;
}

ImageFolderDataset::ImageFolderDataset(const PipelineConfig& config,
                                       std::shared_ptr<const ImageFolderListing> listing,
                                       std::shared_ptr<ImageFolderTally> tally)
    : listing_(std::move(listing)),
      tally_(std::move(tally)),
      dtype_(config.transfer_dtype),
      decode_us_(config.decode_us * config.slow_motion),
      io_us_(config.io_us * config.slow_motion),
      seed_(config.seed) {
    // The knob's own rule (the validator runs it too), for a config that did not come through validate().
    if (const std::optional<std::string> problem = knob_codec::dataset_rule(config))
        throw std::invalid_argument(*problem);
    const std::vector<int64_t>& dims = config.sample_shape.dims;
    channels_ = static_cast<int>(dims[0]);
    height_ = static_cast<int>(dims[1]);
    width_ = static_cast<int>(dims[2]);
}

namespace {

// The crop's floats (ToTensor's [0, 1]) as the transfer dtype: uint8 as the resized pixels would be
// (PILToTensor), half precision rounded once. The decoding around it costs far more than this pass.
void store_as(TransferDtype dtype, const std::vector<float>& crop, std::byte* out) {
    for (size_t i = 0; i < crop.size(); ++i) {
        if (dtype == TransferDtype::uint8) {
            out[i] = static_cast<std::byte>(std::lround(std::clamp(crop[i], 0.0f, 1.0f) * 255.0f));
        } else {
            const uint16_t half =
                dtype == TransferDtype::bfloat16 ? to_bfloat16(crop[i]) : to_float16(crop[i]);
            std::memcpy(out + 2 * i, &half, 2);
        }
    }
}

}  // namespace

bool ImageFolderDataset::load(size_t file, int64_t index, std::byte* out) const {
    const std::string& path = listing_->files[file];
    const TimeNs start = now_ns();
    try {
        const RgbImage image = decode_image(read_file(path));
        // The crop's draw depends on the run's seed and the sample, not on which worker fetched it.
        const CropBox box = random_resized_crop(
            image.width, image.height, seed_ ^ (static_cast<uint64_t>(index) * 0x9E3779B97F4A7C15ull));
        if (dtype_ == TransferDtype::float32) {
            crop_to_tensor(image, box, channels_, height_, width_, reinterpret_cast<float*>(out));
        } else {
            thread_local std::vector<float> crop;
            crop.resize(static_cast<size_t>(channels_) * height_ * width_);
            crop_to_tensor(image, box, channels_, height_, width_, crop.data());
            store_as(dtype_, crop, out);
        }
    } catch (const ImageError& error) {
        tally_->skipped(path, error.what());
        return false;
    }
    tally_->decoded(now_ns() - start);
    return true;
}

std::string ImageFolderDataset::batch_name(int64_t first, int count) const {
    const std::string& path = listing_->files[static_cast<size_t>(first) % listing_->files.size()];
    std::string name = fs::path(path).filename().string();
    if (count > 1) name += fmt::format(" +{}", count - 1);
    return name;
}

void ImageFolderDataset::fetch(int64_t index, std::byte* out, const std::atomic<bool>& stop) const {
    if (io_us_ > 0) spend_wait_us(io_us_, stop);
    if (decode_us_ > 0) spend_cpu_us(decode_us_, stop);
    const size_t files = listing_->files.size();
    const size_t first = static_cast<size_t>(index) % files;
    for (size_t t = 0; t < std::min(files, kMaxTries); ++t) {
        if (stop.load(std::memory_order_relaxed)) return;
        if (load((first + t) % files, index, out)) return;
    }
    throw DatasetError("RuntimeError",
                       fmt::format("sample {}: none of {} files from {} could be read ({})", index,
                                   std::min(files, kMaxTries), listing_->files[first], tally_->first_skip()));
}

}  // namespace pinscope
