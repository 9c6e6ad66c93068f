#pragma once
// The dataset `dataset=folder:PATH` reads: image files directly in PATH or in its class subfolders (as
// torchvision's ImageFolder finds them), each sample one file decoded on the worker that fetches it
// (JPEG, PNG), random-resized-cropped and flipped to sample_shape (CxHxW, C 1 or 3) from the run's seed,
// and turned to float32 as ToTensor does. A file that cannot be read or decoded is skipped (the next
// file is used in its place) and counted, never a crash. decode_us and io_us add to what the files cost.
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/config/pipeline_config.h"
#include "core/pipeline/dataset.h"
#include "core/units/time_ns.h"

namespace pinscope {

// The folder's image files, sorted, found once per folder (a live reconfiguration reuses it).
struct ImageFolderListing {
    std::string folder;
    std::vector<std::string> files;  // paths
};

// Lists `folder`; throws std::invalid_argument naming the folder and the fault: no such folder, or no
// .jpg, .jpeg or .png files in it or its subfolders.
std::shared_ptr<const ImageFolderListing> list_image_folder(const std::string& folder);

// The folder the config's workers read: PATH of folder:PATH, or the sample-jpegs folder, made on first
// use; nullopt for synthetic. Throws std::invalid_argument ("dataset sample-jpegs: cannot make ...")
// when the sample folder cannot be made.
std::optional<std::string> dataset_folder(const PipelineConfig& config);

// What the files cost and which failed, shared by every pipeline of a session.
class ImageFolderTally {
  public:
    void decoded(TimeNs ns);
    void skipped(const std::string& file, const std::string& problem);
    DatasetReport report() const;  // percentiles worked out now: call it at a pipeline's end, not per frame
    std::string first_skip() const;

  private:
    static constexpr size_t kMaxDurations = 1 << 20;  // enough for percentiles
    mutable std::mutex mutex_;
    std::vector<float> decode_us_;
    int64_t decoded_ = 0, skipped_ = 0;
    std::string first_skip_;
};

class ImageFolderDataset final : public Dataset {
  public:
    ImageFolderDataset(const PipelineConfig& config, std::shared_ptr<const ImageFolderListing> listing,
                       std::shared_ptr<ImageFolderTally> tally);

    int64_t sample_bytes() const override {
        return static_cast<int64_t>(channels_) * height_ * width_ * element_bytes(dtype_);
    }
    void fetch(int64_t index, std::byte* out, const std::atomic<bool>& stop) const override;
    DatasetReport report() const override { return tally_->report(); }
    std::string batch_name(int64_t first, int count) const override;

  private:
    // Reads, decodes and crops file `file` into `out`, in the transfer dtype; false (counted) when it
    // cannot be used.
    bool load(size_t file, int64_t index, std::byte* out) const;

    std::shared_ptr<const ImageFolderListing> listing_;
    std::shared_ptr<ImageFolderTally> tally_;
    int channels_, height_, width_;
    TransferDtype dtype_;
    double decode_us_, io_us_;
    uint64_t seed_;
};

}  // namespace pinscope
