#pragma once
// The map-style dataset the workers read: sample i is a uint8 image of the configured shape, turned
// into normalised float32 (x / 255 - mean) / std as torchvision's ToTensor + Normalize would, which is
// real per-sample CPU work; in half precision with transfer_dtype float16 or bfloat16, and left as the
// raw uint8 pixels with uint8 (the GPU normalises them). decode_us adds CPU work (a spinning core), io_us
// adds waiting (a sleep).
#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/config/pipeline_config.h"
#include "core/device/page_aligned.h"
#include "core/units/time_ns.h"

namespace pinscope {

// What a dataset raises. `type` is the Python-style name shown in the re-raised message
// ("Caught ValueError in DataLoader worker process 1. Original: ...").
class DatasetError : public std::runtime_error {
  public:
    DatasetError(std::string type, const std::string& message)
        : std::runtime_error(message), type_(std::move(type)) {}
    const std::string& type() const { return type_; }

  private:
    std::string type_;
};

// What a dataset of real files measured: how long each sample's file took to read and decode, and the
// files it had to skip. Empty for the synthetic dataset, whose costs are the config's.
struct DatasetReport {
    int64_t decoded = 0;     // samples decoded from a file
    int64_t skipped = 0;     // files that could not be read or decoded, skipped
    std::string first_skip;  // "FILE: what is wrong", of the first skipped
    // Per decoded sample: read, decode, crop and convert (the last million samples when there are more).
    double decode_p50_us = 0, decode_p99_us = 0;
};

// CPU work (a spinning core) and waiting (a sleep) of `us` microseconds, cut short by `stop`: what
// decode_us and io_us cost a sample.
void spend_cpu_us(double us, const std::atomic<bool>& stop);
void spend_wait_us(double us, const std::atomic<bool>& stop);

// Whether the synthetic dataset writes `config`'s samples with streaming stores, around the cache: samples
// of 256 KiB and up, in every transfer dtype. The predictor reads its batches' pin copy and pageable
// staging rates by it: a batch written so is read from memory.
bool writes_around_the_cache(const PipelineConfig& config);

class Dataset {
  public:
    virtual ~Dataset() = default;
    // Measured per-sample costs, for a dataset of real files (thread-safe; any time).
    virtual DatasetReport report() const { return {}; }
    // What the timeline calls a batch of `count` samples from `first`: for files, the first one's name
    // ("img00012.jpg +31"); empty where the kind and batch id say it all (the synthetic dataset).
    virtual std::string batch_name(int64_t /*first*/, int /*count*/) const { return {}; }
    virtual int64_t sample_bytes() const = 0;
    // Writes sample `index` into `out` (sample_bytes() bytes). Returns early, leaving `out` unspecified,
    // once `stop` is set, so a pipeline can shut down without finishing a slow batch.
    virtual void fetch(int64_t index, std::byte* out, const std::atomic<bool>& stop) const = 0;
};

using PixelPool = std::vector<uint8_t, PageAlignedAllocator<uint8_t>>;

class SyntheticImageDataset final : public Dataset {
  public:
    explicit SyntheticImageDataset(const PipelineConfig& config);

    int64_t sample_bytes() const override { return elements_ * element_bytes(dtype_); }
    void fetch(int64_t index, std::byte* out, const std::atomic<bool>& stop) const override;

    // What sample `index` costs, as a multiple of decode_us and io_us: its jitter, and the straggler
    // factor when its batch is a straggler.
    double cost_scale(int64_t index) const;

  private:
    // fetch() for samples that take time: waits and spins for what sample `index` costs (io_us,
    // decode_us, scaled by cost_scale), and stretches the conversion in slow motion.
    void fetch_paying(int64_t index, std::byte* out, const std::atomic<bool>& stop) const;
    // Writes sample `index` in the transfer dtype: its window of the pool, normalised channel by channel
    // (or copied as it is, for uint8).
    void convert(int64_t index, std::byte* out) const;

    TransferDtype dtype_;
    int64_t elements_;
    int64_t plane_;  // elements per channel; channels are the first dimension of a 3-d shape
    int channels_;
    // Fixed per dataset and worked out once: the engine benchmark's samples are one float each, so what
    // fetch() does around the copy is most of what a sample costs there.
    float scale_[3], bias_[3];  // Normalize's per-channel multiply and add, by channel % 3
    // Half precision: each channel's 256 normalised values, already rounded (a table is what a byte
    // input makes cheapest, and the values are exactly the float32 path's, rounded once).
    uint16_t half_[3][256];
    int64_t window_starts_;     // a sample's window of the pool starts in [0, window_starts_)
    bool streaming_;            // large samples bypass the cache (see convert_plane)
    bool costs_time_;           // io_us, decode_us or slow motion: fetch_paying() does the sample
    double decode_us_, io_us_;  // slow motion included
    double slow_motion_;
    double cost_jitter_;
    int64_t batch_size_, straggler_every_;
    double straggler_factor_;
    uint64_t seed_;
    int64_t fail_at_sample_;
    // Random "encoded" pixels; samples read windows of it. Page-aligned, as the batch buffers a uint8
    // sample is copied into are: a memcpy's speed hangs on the two buffers' offsets in their pages
    // (page_aligned.h), and malloc's offset for the pool hung on what the process had freed before.
    std::shared_ptr<const PixelPool> pixels_;
};

}  // namespace pinscope
