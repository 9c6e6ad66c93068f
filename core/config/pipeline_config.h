#pragma once
// Every knob of a pipeline run in one place. Names follow PyTorch's DataLoader where PyTorch has the
// knob; the rest describe the workload (sample shape, per-sample cost, kernel) and the GPU side
// (streams, chunks, issue order), as in NVIDIA's copy/compute overlap experiment.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pinscope {

// PyTorch pins with a separate thread that copies each collated batch into page-locked memory.
// `direct` is the better design pinscope also offers: workers collate straight into pinned buffers.
enum class PinMode { thread, direct };

// How chunks of a batch are issued over the streams: per chunk (H2D, kernel, D2H of chunk 0, then of
// chunk 1, ...) or breadth first (all copies, then all kernels, then all result copies).
enum class IssueOrder { per_chunk, copies_first };

enum class DeviceChoice { auto_detect, sim, cuda };

// What a sample crosses the link as. float32: normalised on the host while collating (torchvision's
// ToTensor + Normalize in the workers), 4 bytes an element. uint8: the raw pixels, normalised to float32
// on the GPU by a kernel after the copy (as NVIDIA DALI and FFCV do), a quarter of the bytes.
// float16 / bfloat16: normalised on the host into half precision, which a mixed-precision model takes as
// it is, half the bytes.
enum class TransferDtype { float32, uint8, float16, bfloat16 };
int element_bytes(TransferDtype dtype);

// The samples are uint8 images of this shape, converted while collating into the transfer dtype, so a
// batch on the host and over the link holds batch_size * elements * element_bytes(transfer_dtype) bytes.
struct SampleShape {
    std::vector<int64_t> dims{3, 224, 224};

    int64_t elements() const;
    std::string to_string() const;  // "3x224x224"
    bool operator==(const SampleShape&) const = default;
};

// Each field's meaning, range and help text are in the knob table (core/config/knob_table.cpp); its
// default is here.
struct PipelineConfig {
    // DataLoader
    int num_workers = 2;
    std::optional<int> prefetch_factor;  // unset: PyTorch's default
    bool pin_memory = true;
    PinMode pin_mode = PinMode::thread;
    bool non_blocking = true;
    bool in_order = true;
    int batch_size = 64;

    // Workload
    std::string dataset = "synthetic";  // or "folder:PATH": real images decoded on the workers
    SampleShape sample_shape;
    TransferDtype transfer_dtype = TransferDtype::float32;
    double decode_us = 0;
    double io_us = 0;
    double cost_jitter = 0;       // each sample's costs vary by up to this share either way
    int64_t straggler_every = 0;  // 0: no stragglers
    double straggler_factor = 10;
    double kernel_us = 1000;
    // Compute that grows with the batch: each batch's kernel runs kernel_us + this x batch_size. With
    // kernel_us alone a batch-size sweep gets free compute, and bigger batches always win.
    double kernel_us_per_sample = 0;
    double step_host_us = 0;  // the train loop's own host work per step (a replayed trace's Python)
    int64_t d2h_bytes = 4096;
    int64_t fail_at_sample = -1;

    // GPU side
    int streams = 2;
    int chunks = 1;
    IssueOrder issue_order = IssueOrder::per_chunk;
    DeviceChoice device = DeviceChoice::auto_detect;
    int gpu = 0;              // the device's ordinal (CUDA's numbering)
    std::string calibration;  // empty: the built-in calibration
    bool cupti = true;
    int64_t pinned_budget_mb = 0;  // 0: the default budget
    int copy_engines = 0;          // the simulated GPU's; 0: the calibration's
    double slow_motion = 1;        // the simulated run's durations, this many times longer
    // The ideal every run is measured against: the batches already on the GPU, so no loading and no H2D;
    // the train loop only launches each batch's kernels (and its D2H).
    bool data_on_gpu = false;
    // A fresh process's start-up on the simulated GPU: the context at the first CUDA call, fresh pinned
    // and device allocations (start-up spans). Metrics still count from the first batch.
    bool cold_start = false;
    // Instead of the pipeline, one cold copy timed as a naive benchmark times it (Session says how).
    bool naive_benchmark = false;
    // With naive_benchmark: the tensor made (and pinned) in a parent, copied in a spawned child.
    bool spawned_child = false;

    // Length of a headless run: whichever comes first; 0 means unbounded.
    double seconds = 5;
    int64_t batches = 0;
    uint64_t seed = 0;

    static constexpr int kDefaultPrefetchFactor = 2;

    // What PyTorch would use: the set value, else 2 with workers, else 0 (no prefetch inline).
    int effective_prefetch_factor() const;
    int64_t sample_bytes() const { return sample_shape.elements() * element_bytes(transfer_dtype); }
    // uint8 samples are normalised on the GPU: each batch's first kernel turns them into float32.
    bool normalizes_on_gpu() const { return transfer_dtype == TransferDtype::uint8; }
    // For dataset=folder:PATH, PATH; otherwise nullopt.
    std::optional<std::string> image_folder() const;
    // Whether the workers decode image files: folder:PATH, or pinscope's own sample-jpegs.
    bool reads_images() const { return image_folder().has_value() || dataset == kSampleJpegs; }
    static constexpr std::string_view kSampleJpegs = "sample-jpegs";
    int64_t batch_bytes() const { return sample_bytes() * batch_size; }
    int max_outstanding() const { return effective_prefetch_factor() * num_workers; }

    bool operator==(const PipelineConfig&) const = default;
    // How long one batch's compute runs: the fixed part plus the per-sample part.
    double batch_kernel_us() const {
        return kernel_us + kernel_us_per_sample * static_cast<double>(batch_size);
    }
};

// The names of each choice, in enum order: what configs, the command line and the app call them.
inline constexpr std::string_view kPinModeNames[] = {"thread", "direct"};
inline constexpr std::string_view kIssueOrderNames[] = {"per-chunk", "copies-first"};
inline constexpr std::string_view kDeviceChoiceNames[] = {"auto", "sim", "cuda"};
inline constexpr std::string_view kTransferDtypeNames[] = {"float32", "uint8", "float16", "bfloat16"};
inline std::span<const std::string_view> choice_names(PinMode) {
    return kPinModeNames;
}
inline std::span<const std::string_view> choice_names(IssueOrder) {
    return kIssueOrderNames;
}
inline std::span<const std::string_view> choice_names(DeviceChoice) {
    return kDeviceChoiceNames;
}
inline std::span<const std::string_view> choice_names(TransferDtype) {
    return kTransferDtypeNames;
}

template <class Choice>
requires requires(Choice c) {
    choice_names(c);
}
std::string_view to_string(Choice value) {
    return choice_names(value)[static_cast<size_t>(value)];
}

// The choice named `text`, or nullopt.
template <class Choice>
std::optional<Choice> parse_choice(std::string_view text) {
    const std::span<const std::string_view> names = choice_names(Choice{});
    for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == text) return static_cast<Choice>(i);
    return std::nullopt;
}
// "3x224x224" -> {3,224,224}; nullopt when malformed (validate() checks the values).
std::optional<SampleShape> parse_sample_shape(std::string_view text);

}  // namespace pinscope
