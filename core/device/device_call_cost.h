#pragma once
// What one device call costs the calling thread when the train loop makes it. Per batch the loop
// queries an event, copies the batch in, launches the kernel, copies the result out and records an
// event, all asynchronous; on a real GPU each is a driver call (and, with CUPTI on, a traced one). The
// simulated GPU charges Calibration::host_call_us per call, so a host-bound pipeline (small batches,
// tiny kernels) is predicted only as well as this figure is measured: through the device itself, with
// the calls in the loop's mix, not one call type alone.
#include "core/device/device.h"

namespace pinscope {

// The median over `rounds` of the mean time per call of `batches` batches issued as the train loop
// does (4 KiB from pinned memory in and out, a zero-length kernel, three streams), in microseconds.
double time_device_call_us(Device& device, int batches = 500, int rounds = 5);

}  // namespace pinscope
