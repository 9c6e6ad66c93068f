#pragma once
// The config as the controls panel edits it. Widgets write into draft(); every edit is validated
// with validate() (the one place that decides) and, when valid, becomes the pending change that the
// app hands to the running pipeline. An invalid draft is never applied: its errors are shown next to
// the knob they name, and the pipeline keeps running the last valid config.
#include <functional>
#include <optional>
#include <string_view>

#include "core/config/validate.h"

namespace pinscope {
struct Preset;
}

namespace pinscope::gui {

class ConfigEditor {
  public:
    explicit ConfigEditor(PipelineConfig applied, unsigned host_cores = 0);

    const PipelineConfig& draft() const { return draft_; }
    // The last config handed to the pipeline.
    const PipelineConfig& applied() const { return applied_; }
    const Validation& validation() const { return validation_; }

    // Changes the draft and validates it. The views call this from their widgets; tests call it
    // the same way.
    void edit(const std::function<void(PipelineConfig&)>& change);
    void load_preset(const Preset& preset);
    void reset_to_defaults();

    // The first error (or else warning) that names `option`, for showing beside its widget.
    const ConfigIssue* error_for(std::string_view option) const;
    const ConfigIssue* warning_for(std::string_view option) const;

    // PyTorch's rule, shown as a disabled widget: prefetch_factor means nothing without workers.
    bool prefetch_factor_applies() const { return draft_.num_workers > 0; }

    // The draft, when it is valid and differs from what was applied (and is not held for a preview);
    // it then counts as applied.
    std::optional<PipelineConfig> take_change();
    bool has_pending_change() const { return !previewing_ && has_edits(); }
    // The draft is valid and differs from what was applied.
    bool has_edits() const { return validation_.ok() && !(draft_ == applied_); }

    // Preview: edits stay in the draft, for the predictor to compare with what runs, until apply_edits()
    // hands them over (at the next take_change) or discard_edits() puts the draft back to what runs.
    // Turning preview off hands over what it held.
    void set_previewing(bool on) { previewing_ = on; }
    bool previewing() const { return previewing_; }
    void apply_edits();
    void discard_edits();
    int changes_taken() const { return changes_taken_; }

    // The defaults the app starts from (PipelineConfig's, run unbounded).
    static PipelineConfig defaults();

  private:
    void revalidate();

    PipelineConfig applied_;
    PipelineConfig draft_;
    Validation validation_;
    unsigned host_cores_;
    int changes_taken_ = 0;
    bool previewing_ = false;
    bool apply_requested_ = false;  // apply_edits() while previewing: the next take_change hands over
};

}  // namespace pinscope::gui
