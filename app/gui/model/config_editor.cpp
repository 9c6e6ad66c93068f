#include "app/gui/model/config_editor.h"

#include <utility>

#include "app/gui/model/live_session.h"
#include "core/config/knobs.h"
#include "core/config/presets.h"

namespace pinscope::gui {

PipelineConfig ConfigEditor::defaults() {
    return LiveSession::unbounded(PipelineConfig{});
}

ConfigEditor::ConfigEditor(PipelineConfig applied, unsigned host_cores)
    : applied_(LiveSession::unbounded(std::move(applied))), draft_(applied_), host_cores_(host_cores) {
    revalidate();
}

void ConfigEditor::revalidate() {
    validation_ = validate(draft_, host_cores_);
}

void ConfigEditor::edit(const std::function<void(PipelineConfig&)>& change) {
    change(draft_);
    draft_ = LiveSession::unbounded(std::move(draft_));
    revalidate();
}

void ConfigEditor::load_preset(const Preset& preset) {
    edit([&](PipelineConfig& c) { c = apply_preset(preset, c); });
}

void ConfigEditor::reset_to_defaults() {
    edit([](PipelineConfig& c) {
        PipelineConfig fresh = defaults();
        keep_machine_knobs(fresh, c);  // the computer is not part of "the defaults"
        c = fresh;
    });
}

const ConfigIssue* ConfigEditor::error_for(std::string_view option) const {
    for (const ConfigIssue& issue : validation_.errors)
        if (issue.option == option) return &issue;
    return nullptr;
}

const ConfigIssue* ConfigEditor::warning_for(std::string_view option) const {
    for (const ConfigIssue& issue : validation_.warnings)
        if (issue.option == option) return &issue;
    return nullptr;
}

void ConfigEditor::apply_edits() {
    apply_requested_ = true;
}

void ConfigEditor::discard_edits() {
    draft_ = applied_;
    apply_requested_ = false;
    revalidate();
}

std::optional<PipelineConfig> ConfigEditor::take_change() {
    const bool requested = std::exchange(apply_requested_, false);
    if (!has_edits() || (previewing_ && !requested)) return std::nullopt;
    applied_ = draft_;
    ++changes_taken_;
    return applied_;
}

}  // namespace pinscope::gui
