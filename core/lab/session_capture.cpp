#include "core/lab/session_capture.h"

#include "core/device/calibration.h"
#include "core/io/capture_stream.h"
#include "core/io/metrics_json.h"
#include "core/lab/measured_run.h"

namespace pinscope {

CaptureInfo session_capture_info(const Session& session, const TraceStore& store, MetricsWindow window) {
    CaptureInfo info = describe_session(session);
    info.window = window;
    info.metrics =
        metrics_json(compute_metrics(store, capture_batch_size(info), window, capture_slow_motion(info)));
    info.evicted_spans = store.evicted_spans();
    return info;
}

CaptureInfo describe_session(const Session& session) {
    const SessionStatus status = session.status();
    CaptureInfo info;
    info.config = status.config;
    info.device = status.device;
    info.device_why = status.device_why;
    // A simulated GPU is only as good as its calibration: keep the figures it ran with, so the capture
    // still says what was modelled after the file that held them is gone.
    if (status.device.kind == "sim") info.calibration = calibration_file_json(status.config.calibration);
    info.dropped_spans = session.trace().dropped();
    info.gpu_trace = session.gpu_trace_report();
    return info;
}

CaptureInfo streamed_capture_info(const MeasuredRun& run, const CaptureStream& stream) {
    CaptureInfo info = session_capture_info(run);
    info.evicted_spans = 0;  // the live store's bound evicted spans from memory, not from the file
    info.window = stream.recorded_window();
    return info;
}

CaptureInfo session_capture_info(const MeasuredRun& run) {
    const TraceCollector::Snapshot snapshot = run.trace();
    return session_capture_info(run.session(), snapshot.store(), measured_window(snapshot.store()));
}

}  // namespace pinscope
