#pragma once
// What one device call costs the calling thread when the train loop makes it. Per batch the loop
// queries an event, copies the batch in, launches the kernel, copies the result out and records an
// event, all asynchronous; on a real GPU each is a driver call (and, with CUPTI on, a traced one). The
// simulated GPU charges Calibration::host_call_us per call, so a host-bound pipeline (small batches,
// tiny kernels) is predicted only as well as this figure is measured: through the device itself, with
// the calls in the loop's mix, not one call type alone.
#include <chrono>
#include <functional>

#include "core/device/device.h"

namespace pinscope {

// The median over `rounds` of the mean time per call of `batches` batches issued as the train loop
// does (4 KiB from pinned memory in and out, a zero-length kernel, three streams), in microseconds.
double time_device_call_us(Device& device, int batches = 500, int rounds = 5);

// The mean of `draws` calls of `draw`, a pause before each but the first. One draw of the call cost is a
// moment's: on an H200 host a thread's five calls cost about 3.4 us a call in one draw and 5 us in the
// next, half a second apart, in one process, the device kept or made anew; seven probes of another read
// 2.98 to 6.29 us, and the simulated GPU's CIFAR-like runs with 14 workers moved with the draw (3.1M
// samples/s at 3 us, 2.2M at 4.6) where the real ones did not. A run of seconds meets the moments'
// average, so the mean, not one draw nor a median that picks one of the two levels. Three probes of a
// third host then read 3.48 to 3.53 us; single draws taken between them read 3.78 to 4.76.
double mean_of_draws(int draws, std::chrono::milliseconds pause, const std::function<double()>& draw);

// What the probe writes as host_call_us: mean_of_draws() of time_device_call_us(), 10 draws 250 ms apart
// (about 3 s).
double mean_device_call_us(Device& device, int draws = 10,
                           std::chrono::milliseconds pause = std::chrono::milliseconds(250));

}  // namespace pinscope
