#pragma once
// Opening a capture without freezing the app: the file is read and decoded on a background thread,
// and for viewing the app's state is built there too (the history plots take a pass over the spans),
// while the frame loop shows progress and can cancel. A file that cannot be opened ends as an error
// message naming it, and the app stays as it was.
#include <atomic>
#include <filesystem>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "app/gui/model/app_state.h"
#include "core/io/capture.h"

namespace pinscope::gui {

// A quarter of this machine's memory: what a capture may take in the app (which also keeps plots of it
// and, drawn on the GPU, a copy of its spans there) before it opens a part of it instead.
uint64_t quarter_of_the_memory();

class CaptureLoader {
  public:
    enum class Purpose {
        view,     // replaces what the app shows
        compare,  // goes beside the capture the app shows
    };

    // Without `range`, a capture too big to open whole in `budget_bytes` opens its first part that fits
    // (CaptureInfo::loaded_range then says which).
    CaptureLoader(std::filesystem::path path, Purpose purpose,
                  std::optional<CaptureRange> range = std::nullopt,
                  uint64_t budget_bytes = quarter_of_the_memory());
    ~CaptureLoader();  // cancels and waits
    CaptureLoader(const CaptureLoader&) = delete;
    CaptureLoader& operator=(const CaptureLoader&) = delete;

    const std::filesystem::path& path() const { return path_; }
    Purpose purpose() const { return purpose_; }
    double progress() const { return progress_.load(); }  // in [0, 1]: the file read and decoded
    bool preparing() const { return progress() >= 1.0; }  // decoded; the view is being built
    void cancel() { cancelled_ = true; }

    bool ready() const;  // done, one way or the other: the takes below do not wait
    // Once ready, once: Purpose::view gives the state that shows the capture, compare the capture.
    // Empty when it failed, with error() saying why.
    std::unique_ptr<AppState> take_view();
    std::optional<Capture> take_capture();
    const std::string& error() const { return error_; }

  private:
    void finish();

    std::filesystem::path path_;
    Purpose purpose_;
    std::atomic<double> progress_{0};
    std::atomic<bool> cancelled_{false};
    std::future<void> work_;
    std::unique_ptr<AppState> view_;
    std::optional<Capture> capture_;
    std::string error_;
};

}  // namespace pinscope::gui
