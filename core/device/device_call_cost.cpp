#include "core/device/device_call_cost.h"

#include <thread>
#include <vector>

#include "core/device/median.h"
#include "core/trace/clock.h"

namespace pinscope {

double time_device_call_us(Device& device, int batches, int rounds) {
    constexpr size_t kBytes = 4096;
    constexpr int kStreams = 3;
    constexpr int kCallsPerBatch = 5;  // query, copy in, launch, copy out, record
    HostBuffer in = device.allocate_host(kBytes, HostMemory::pinned);
    HostBuffer out = device.allocate_host(kBytes, HostMemory::pinned);
    DeviceBuffer input = device.allocate_device(kBytes), output = device.allocate_device(kBytes);
    std::vector<Stream> streams;
    std::vector<Event> done;
    for (int s = 0; s < kStreams; ++s) {
        streams.push_back(device.create_stream(s));
        done.push_back(device.create_event());
        device.record(done.back(), streams.back());
    }
    KernelWork work;
    work.input = &input;
    work.input_bytes = kBytes;
    work.output = &output;
    work.output_bytes = kBytes;

    std::vector<double> per_call_us;
    for (int r = 0; r <= rounds; ++r) {  // round 0 warms up
        device.synchronize();
        const TimeNs start = now_ns();
        for (int b = 0; b < batches; ++b) {
            Stream& stream = streams[static_cast<size_t>(b % kStreams)];
            Event& event = done[static_cast<size_t>(b % kStreams)];
            device.ready(event);  // the train loop asks before it reuses a slot; that call costs too
            device.copy_to_device(input, 0, in, 0, kBytes, stream, /*non_blocking=*/true, b);
            work.batch = b;
            device.launch_kernel(work, stream);
            device.copy_to_host(out, 0, output, 0, kBytes, stream, /*non_blocking=*/true, b);
            device.record(event, stream);
        }
        const TimeNs elapsed = now_ns() - start;
        if (r > 0) per_call_us.push_back(static_cast<double>(elapsed) * 1e-3 / (batches * kCallsPerBatch));
    }
    device.synchronize();
    return median(per_call_us);
}

double mean_of_draws(int draws, std::chrono::milliseconds pause, const std::function<double()>& draw) {
    double sum = 0;
    for (int d = 0; d < draws; ++d) {
        if (d > 0) std::this_thread::sleep_for(pause);
        sum += draw();
    }
    return draws > 0 ? sum / draws : 0;
}

double mean_device_call_us(Device& device, int draws, std::chrono::milliseconds pause) {
    return mean_of_draws(draws, pause, [&] { return time_device_call_us(device); });
}

}  // namespace pinscope
