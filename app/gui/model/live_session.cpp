#include "app/gui/model/live_session.h"

#include <stdexcept>

#include "core/device/calibration.h"

namespace pinscope::gui {

PipelineConfig LiveSession::unbounded(PipelineConfig config) {
    config.seconds = 0;
    config.batches = 0;
    return config;
}

LiveSession::LiveSession(const PipelineConfig& config, TraceLimits limits) : limits_(limits), store_(limits) {
    start(config);
}

LiveSession::~LiveSession() {
    if (session_) session_->stop();
}

void LiveSession::start(const PipelineConfig& config) {
    auto session = std::make_unique<Session>(unbounded(config));
    if (session_) session_->stop();
    // A new Session numbers its lanes afresh, so the old spans cannot stay in the store.
    session_ = std::move(session);
    store_ = TraceStore(limits_);
    session_->start();
    status_ = session_->status();
}

void LiveSession::collect() {
    session_->trace().collect(store_);
    status_ = session_->status();
}

std::string LiveSession::apply(const PipelineConfig& requested) {
    const PipelineConfig config = unbounded(requested);
    try {
        const SessionState state = session_->status().state;
        if (state == SessionState::running || state == SessionState::idle) {
            session_->reconfigure(config);
        } else {
            start(config);
            ++restarts_;
        }
    } catch (const std::invalid_argument& e) {
        return e.what();
    } catch (const DeviceError& e) {
        return e.what();
    } catch (const CalibrationError& e) {
        return std::string("calibration: ") + e.what();
    }
    status_ = session_->status();
    return {};
}

}  // namespace pinscope::gui
