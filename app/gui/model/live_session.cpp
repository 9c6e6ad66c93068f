#include "app/gui/model/live_session.h"

#include <stdexcept>

#include "core/device/calibration.h"

namespace pinscope::gui {

PipelineConfig LiveSession::unbounded(PipelineConfig config) {
    config.seconds = 0;
    config.batches = 0;
    return config;
}

LiveSession::LiveSession(const PipelineConfig& config, TraceLimits limits) : limits_(limits) {
    start(config);
}

LiveSession::~LiveSession() {
    if (session_) session_->stop();
    collector_.reset();
}

void LiveSession::start(const PipelineConfig& config) {
    auto session = std::make_unique<Session>(unbounded(config));
    if (session_) session_->stop();
    // A new Session numbers its lanes afresh, so the old spans cannot stay: a new store, a new history.
    collector_.reset();
    session_ = std::move(session);
    {
        std::lock_guard lock(history_mutex_);
        history_.clear();
    }
    batch_size_ = config.batch_size;
    slow_motion_ = config.slow_motion;
    CollectorOptions options;
    options.limits = limits_;
    options.on_collected = [this](const TraceStore& store) { update_history(store); };
    collector_ = std::make_unique<TraceCollector>(session_->trace(), std::move(options));
    session_->start();
    status_ = session_->status();
}

void LiveSession::refresh() {
    status_ = session_->status();
    batch_size_ = status_.config.batch_size;
    slow_motion_ = status_.config.slow_motion;
}

void LiveSession::update_history(const TraceStore& store) {
    std::lock_guard lock(history_mutex_);
    history_.update(store, batch_size_, collector_ ? collector_->delivery_lag() : 0, slow_motion_);
}

MetricsHistory LiveSession::history() const {
    std::lock_guard lock(history_mutex_);
    return history_;
}

std::string LiveSession::apply(const PipelineConfig& requested) {
    const PipelineConfig config = unbounded(requested);
    try {
        const SessionState state = session_->status().state;
        // A cold start is a fresh process: a new session, whose lanes hold nothing of the last one.
        const bool fresh = config.cold_start || config.naive_benchmark;
        if (!fresh && (state == SessionState::running || state == SessionState::idle)) {
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
    refresh();
    return {};
}

const char* LiveSession::state_word() const {
    if (status_.state == SessionState::failed) return "FAILED";
    if (status_.state == SessionState::finished) return "FINISHED";  // a naive benchmark's one copy
    return paused() ? "PAUSED" : "RUNNING";
}

}  // namespace pinscope::gui
