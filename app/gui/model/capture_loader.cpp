#include "app/gui/model/capture_loader.h"

#include <chrono>

namespace pinscope::gui {

uint64_t quarter_of_the_memory() {
    const int64_t memory = physical_memory_bytes();
    return memory > 0 ? static_cast<uint64_t>(memory) / 4 : UINT64_MAX;  // unknown memory sets no bound
}

CaptureLoader::CaptureLoader(std::filesystem::path path, Purpose purpose, std::optional<CaptureRange> range,
                             uint64_t budget_bytes)
    : path_(std::move(path)), purpose_(purpose) {
    work_ = std::async(std::launch::async, [this, range, budget_bytes] {
        std::optional<CaptureRange> part = range;
        if (!part) try {
                part = range_that_fits(capture_size(path_), budget_bytes);
            } catch (const CaptureError&) {
                // load_capture says what is wrong with the file.
            }
        Capture capture = load_capture(
            path_,
            [this](double share) {
                progress_ = share;
                return !cancelled_.load();
            },
            part);
        progress_ = 1.0;
        if (purpose_ == Purpose::view)
            view_ = std::make_unique<AppState>(std::move(capture));
        else
            capture_ = std::move(capture);
    });
}

CaptureLoader::~CaptureLoader() {
    cancelled_ = true;
    if (work_.valid()) work_.wait();
}

bool CaptureLoader::ready() const {
    return !work_.valid() || work_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

void CaptureLoader::finish() {
    if (!work_.valid()) return;
    try {
        work_.get();
    } catch (const CaptureError& e) {  // names the file already
        error_ = e.what();
    } catch (const std::exception& e) {  // out of memory, and the like
        error_ = path_.string() + ": " + e.what();
    }
}

std::unique_ptr<AppState> CaptureLoader::take_view() {
    finish();
    return std::move(view_);
}

std::optional<Capture> CaptureLoader::take_capture() {
    finish();
    std::optional<Capture> taken = std::move(capture_);
    capture_.reset();
    return taken;
}

}  // namespace pinscope::gui
