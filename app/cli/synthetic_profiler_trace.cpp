#include "app/cli/synthetic_profiler_trace.h"

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace pinscope {

namespace {

constexpr int kPid = 48213, kPinTid = 48290;

struct FileCloser {
    void operator()(FILE* f) const { std::fclose(f); }
};

class TraceWriter {
  public:
    explicit TraceWriter(const std::filesystem::path& path) : file_(std::fopen(path.c_str(), "wb")) {
        if (!file_) throw std::runtime_error("cannot write " + path.string());
        buffer_.reserve(1 << 20);
    }
    ~TraceWriter() = default;

    void raw(std::string_view text) {
        buffer_.append(text);
        if (buffer_.size() > (1 << 20)) flush();
    }
    // One complete event, laid out as Kineto lays it out.
    void complete(std::string_view cat, std::string_view name, int pid, int tid, double ts, double dur,
                  std::string_view args) {
        comma();
        fmt::format_to(
            std::back_inserter(buffer_),
            "  {{\n    \"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": {}, \"tid\": {},\n"
            "    \"ts\": {:.3f}, \"dur\": {:.3f},\n    \"args\": {{\n      {}\n    }}\n  }}",
            cat, name, pid, tid, ts, dur, args);
        ++events_;
        if (buffer_.size() > (1 << 20)) flush();
    }
    void flow(char ph, int64_t id, int pid, int tid, double ts, std::string_view cat = "ac2g") {
        comma();
        fmt::format_to(std::back_inserter(buffer_),
                       "  {{\n    \"ph\": \"{}\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {:.3f},\n"
                       "    \"cat\": \"{}\", \"name\": \"{}\"{}\n  }}",
                       ph, id, pid, tid, ts, cat, cat, ph == 'f' ? ", \"bp\": \"e\"" : "");
        ++events_;
    }
    void metadata(std::string_view name, int pid, int tid, std::string_view args) {
        comma();
        fmt::format_to(std::back_inserter(buffer_),
                       "  {{\n    \"name\": \"{}\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": {}, \"tid\": {},\n"
                       "    \"args\": {{\n      {}\n    }}\n  }}",
                       name, pid, tid, args);
        ++events_;
    }
    void flush() {
        if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_.get()) != buffer_.size())
            throw std::runtime_error("writing the synthetic trace failed");
        written_ += buffer_.size();
        buffer_.clear();
    }
    uint64_t bytes() const { return written_ + buffer_.size(); }
    uint64_t events() const { return events_; }

  private:
    void comma() {
        if (events_ > 0) buffer_.append(",\n");
    }
    std::unique_ptr<FILE, FileCloser> file_;
    std::string buffer_;
    uint64_t written_ = 0, events_ = 0;
};

// The operators of a forward and backward pass: each launches one kernel.
constexpr const char* kOps[][2] = {
    {"aten::conv2d", "void cudnn::cnn::conv2d_grouped_direct_kernel<float, float, float>"},
    {"aten::batch_norm", "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>"},
    {"aten::relu_", "void at::native::vectorized_elementwise_kernel<4, at::native::ReLUFunctor>"},
    {"aten::linear", "ampere_sgemm_128x64_tn"},
    {"aten::add_", "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>"},
    {"aten::cross_entropy_loss", "void at::native::nll_loss_forward_reduce_cuda_kernel_2d<float, float>"},
};
constexpr const char* kPython[] = {
    "train.py(88): <module>",
    "train.py(61): train_step",
    "torch/nn/modules/module.py(1736): _wrapped_call_impl",
    "torch/nn/modules/module.py(1747): _call_impl",
    "torchvision/models/resnet.py(285): forward",
};

}  // namespace

SyntheticTraceStats write_synthetic_profiler_trace(const std::filesystem::path& path, uint64_t bytes) {
    TraceWriter w(path);
    w.raw(
        "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n      \"id\": 0, \"name\": \"NVIDIA "
        "H100 "
        "80GB HBM3\", \"totalGlobalMem\": 85024112640,\n      \"computeMajor\": 9, \"computeMinor\": 0\n    "
        "}\n  ],\n"
        "  \"cupti_version\": 26,\n  \"cuda_runtime_version\": 12080,\n  \"cuda_driver_version\": 13000,\n"
        "  \"trace_id\": \"0F1E2D3C4B5A69788796A5B4C3D2E1F0\",\n  \"traceEvents\": [\n");
    w.metadata("process_name", kPid, 0, "\"name\": \"python3\"");
    w.metadata("thread_name", kPid, kPid, "\"name\": \"python3\"");
    w.metadata("thread_name", kPid, kPinTid, "\"name\": \"pt_pin_memory\"");
    w.metadata("process_name", 0, 0, "\"name\": \"GPU 0\"");
    w.metadata("process_sort_index", 0, 0, "\"sort_index\": 5000000");
    double t = 1000.0;
    int64_t correlation = 1, external = 1;
    SyntheticTraceStats stats;
    for (uint64_t step = 0; w.bytes() < bytes; ++step) {
        const double step_start = t;
        w.complete(
            "user_annotation", fmt::format("ProfilerStep#{}", step), kPid, kPid, t, 9800.0,
            fmt::format("\"External id\": {},\"Record function id\": 0, \"Ev Idx\": {}", external, external));
        ++external;
        // The loader: a wait on the train loop, the pin thread pinning the next batch.
        w.complete("user_annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", kPid,
                   kPid, t + 2.0, 1200.0,
                   fmt::format("\"External id\": {},\"Record function id\": 0", external++));
        w.complete(
            "cpu_op", "aten::pin_memory", kPid, kPinTid, t + 400.0, 600.0,
            fmt::format("\"External id\": {},\"Record function id\": 0, \"Sequence number\": 0", external++));
        t += 1210.0;
        // The batch to the GPU: aten::to > aten::_to_copy > aten::copy_ > cudaMemcpyAsync > Memcpy HtoD.
        for (int tensor = 0; tensor < 2; ++tensor) {
            w.complete("cpu_op", "aten::to", kPid, kPid, t, 40.0,
                       fmt::format("\"External id\": {}", external++));
            w.complete("cpu_op", "aten::_to_copy", kPid, kPid, t + 2, 36.0,
                       fmt::format("\"External id\": {}", external++));
            w.complete("cpu_op", "aten::copy_", kPid, kPid, t + 6, 30.0,
                       fmt::format("\"External id\": {}", external++));
            w.complete("cuda_runtime", "cudaMemcpyAsync", kPid, kPid, t + 10, 12.0,
                       fmt::format("\"External id\": {},\"cbid\": 41, \"correlation\": {}", external++,
                                   correlation));
            w.complete(
                "gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 0, 7, t + 15, tensor == 0 ? 380.0 : 2.0,
                fmt::format("\"device\": 0, \"context\": 1,\n      \"stream\": 7, \"correlation\": {},\n"
                            "      \"bytes\": {}, \"memory bandwidth (GB/s)\": {}",
                            correlation, tensor == 0 ? 19267584 : 1024, tensor == 0 ? 50.7 : 0.5));
            w.flow('s', correlation, kPid, kPid, t + 10);
            w.flow('f', correlation, 0, 7, t + 15);
            ++correlation;
            t += 45.0;
        }
        // Forward, backward and the optimizer, in the proportions of the fixtures recorded on the GPU
        // machine (tests/fixtures/torch-traces/): per step about 107 cpu_op, 36 runtime calls, 22 kernels
        // with their ac2g flows, 7 fwdbwd flows, 2 memsets, 2 GPU annotations; and a short Python stack.
        for (int depth = 0; depth < 2; ++depth)
            w.complete("python_function", kPython[depth], kPid, kPid, t + depth, 1700.0 - 2 * depth,
                       fmt::format("\"Python parent id\": {}, \"Python id\": {}, \"Python thread\": 0", depth,
                                   depth + 1));
        for (int layer = 0; layer < 22; ++layer) {
            const auto& op = kOps[layer % 6];
            // An operator over three of its own, one of them over another: five cpu_op, nested.
            w.complete("cpu_op", op[0], kPid, kPid, t + 2, 60.0,
                       fmt::format("\"External id\": {},\"Record function id\": 0, \"Sequence number\": {}, "
                                   "\"Fwd thread id\": 0",
                                   external, layer));
            w.complete("cpu_op", "aten::empty", kPid, kPid, t + 4, 3.0,
                       fmt::format("\"External id\": {}", external + 1));
            w.complete("cpu_op", "aten::t", kPid, kPid, t + 8, 6.0,
                       fmt::format("\"External id\": {}", external + 2));
            w.complete("cpu_op", "aten::transpose", kPid, kPid, t + 9, 4.0,
                       fmt::format("\"External id\": {}", external + 3));
            w.complete("cpu_op", "aten::as_strided", kPid, kPid, t + 10, 2.0,
                       fmt::format("\"External id\": {}", external + 4));
            if (layer % 3 == 0)
                w.complete("cuda_runtime", "cudaFuncGetAttributes", kPid, kPid, t + 14, 1.0,
                           fmt::format("\"External id\": {},\"cbid\": 8, \"correlation\": {}", external,
                                       correlation++));
            w.complete(
                "cuda_runtime", "cudaLaunchKernel", kPid, kPid, t + 20, 6.0,
                fmt::format("\"External id\": {},\"cbid\": 211, \"correlation\": {}", external, correlation));
            w.complete(
                "kernel", op[1], 0, 7, t + 30, 320.0,
                fmt::format(
                    "\"External id\": {},\n      \"queued\": 0, \"device\": 0, \"context\": 1,\n"
                    "      \"stream\": 7, \"correlation\": {},\n      \"registers per thread\": 64,\n"
                    "      \"shared memory\": 0, \"blocks per SM\": 8.5,\n      \"warps per SM\": 34.0,\n"
                    "      \"grid\": [1024, 1, 1], \"block\": [256, 1, 1],\n"
                    "      \"est. achieved occupancy %\": 50",
                    external, correlation));
            w.flow('s', correlation, kPid, kPid, t + 20);
            w.flow('f', correlation, 0, 7, t + 30);
            if (layer % 3 == 1) {  // a forward operator to its backward: a fwdbwd flow between host spans
                w.flow('s', 1'000'000'000 + correlation, kPid, kPid, t + 2, "fwdbwd");
                w.flow('f', 1'000'000'000 + correlation, kPid, kPid, t + 2, "fwdbwd");
            }
            ++correlation;
            external += 5;
            t += 70.0;
        }
        for (const char* annotation : {"Optimizer.zero_grad#SGD.zero_grad", "Optimizer.step#SGD.step"}) {
            w.complete("user_annotation", annotation, kPid, kPid, t, 30.0,
                       fmt::format("\"External id\": {}", external++));
            w.complete("gpu_user_annotation", annotation, 0, 7, t + 10, 20.0, "\"device\": 0, \"stream\": 7");
            w.complete(
                "cuda_runtime", "cudaMemsetAsync", kPid, kPid, t + 2, 4.0,
                fmt::format("\"External id\": {},\"cbid\": 51, \"correlation\": {}", external, correlation));
            w.complete(
                "gpu_memset", "Memset (Device)", 0, 7, t + 8, 1.5,
                fmt::format("\"device\": 0, \"context\": 1,\n      \"stream\": 7, \"correlation\": {},\n"
                            "      \"bytes\": 4096, \"memory bandwidth (GB/s)\": 2.7",
                            correlation++));
            t += 40.0;
        }
        w.complete(
            "cuda_runtime", "cudaMemcpyAsync", kPid, kPid, t - 3, 6.0,
            fmt::format("\"External id\": {},\"cbid\": 41, \"correlation\": {}", external++, correlation));
        w.complete("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 0, 7, t, 1.5,
                   fmt::format("\"device\": 0, \"context\": 1,\n      \"stream\": 7, \"correlation\": {},\n"
                               "      \"bytes\": 4, \"memory bandwidth (GB/s)\": \"N/A\"",
                               correlation++));
        w.complete(
            "cuda_runtime", "cudaStreamSynchronize", kPid, kPid, t, 5.0,
            fmt::format("\"External id\": {},\"cbid\": 131, \"correlation\": {}", external++, correlation++));
        t = step_start + 10000.0;
        ++stats.steps;
    }
    w.raw(
        "\n  ],\n  \"traceName\": \"synthetic.pt.trace.json\",\n  \"displayTimeUnit\": \"ms\",\n"
        "  \"baseTimeNanoseconds\": 1764000000000000000\n}\n");
    w.flush();
    stats.bytes = w.bytes();
    stats.events = w.events();
    return stats;
}

}  // namespace pinscope
