#pragma once
// What a capture of a session says about it besides its spans: the config in force, the device and the
// calibration it ran with, the metrics over `window`, and what recording lost. `pinscope run --capture`
// and the app's Save capture both describe their session this way.
#include "core/io/capture.h"
#include "core/pipeline/session.h"

namespace pinscope {

CaptureInfo session_capture_info(const Session& session, const TraceStore& store, MetricsWindow window);
// The same without a window and metrics, for a caller that measures its own window later.
CaptureInfo describe_session(const Session& session);

// The same for a run measured as `pinscope run` measures it, over the run's measured window.
class MeasuredRun;
CaptureInfo session_capture_info(const MeasuredRun& run);

// The same for a run that streamed its capture into `stream`: the file holds every span, so nothing
// was evicted from it, and its metrics window is the whole run's.
class CaptureStream;
CaptureInfo streamed_capture_info(const MeasuredRun& run, const CaptureStream& stream);

}  // namespace pinscope
