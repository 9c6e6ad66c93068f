#include "app/gui/controls_window.h"

#include <fmt/format.h>

#include "app/gui/model/presets.h"
#include "app/gui/text_field.h"
#include "app/gui/ui_style.h"

namespace pinscope::gui {
namespace {

// Slider ranges: what is useful to sweep by hand. validate() holds the real limits; Ctrl+click
// on a slider types a value beyond them, and validate() judges it.
constexpr int kMaxWorkersSlider = 32;
constexpr int kMaxPrefetchSlider = 16;

template <class T>
bool slider(const char* label, T& value, T low, T high, const char* format, bool logarithmic = false) {
    ImGuiDataType type = ImGuiDataType_S32;
    if constexpr (std::is_same_v<T, int64_t>) type = ImGuiDataType_S64;
    if constexpr (std::is_same_v<T, double>) type = ImGuiDataType_Double;
    return ImGui::SliderScalar(label, type, &value, &low, &high, format,
                               logarithmic ? ImGuiSliderFlags_Logarithmic : ImGuiSliderFlags_None);
}

template <class T>
bool combo(const char* label, T& value, std::initializer_list<std::pair<T, const char*>> choices) {
    const char* current = "";
    for (const auto& [v, name] : choices)
        if (v == value) current = name;
    bool changed = false;
    if (ImGui::BeginCombo(label, current)) {
        for (const auto& [v, name] : choices) {
            if (ImGui::Selectable(name, v == value) && v != value) {
                value = v;
                changed = true;
            }
        }
        ImGui::EndCombo();
    }
    return changed;
}

}  // namespace

void ControlsWindow::issues(const ConfigEditor& editor, const char* option) {
    if (const ConfigIssue* e = editor.error_for(option))
        wrapped_message(error_colour(theme_), e->message);
    else if (const ConfigIssue* w = editor.warning_for(option))
        wrapped_message(warning_colour(theme_), w->message);
}

void ControlsWindow::draw(AppState& state, Theme theme, ImVec2 pos, ImVec2 size) {
    theme_ = theme;
    ImGui::SetNextWindowPos(pos);
    ImGui::SetNextWindowSize(size);
    ImGui::Begin("Controls", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
    ConfigEditor& editor = state.editor();
    if (!state.live()) {
        wrapped_message(muted_colour(theme), "Viewing a recorded trace: there is no pipeline to control.");
        ImGui::BeginDisabled();
    }
    presets(editor);

    // Where the edits stand: applied, or held back by an error (shown again under its knob).
    if (!editor.validation().ok()) {
        wrapped_message(error_colour(theme),
                        fmt::format("Not applied: {} has a problem (see below); the pipeline keeps running "
                                    "the last valid config.",
                                    editor.validation().errors.front().option));
    } else if (!state.apply_error().empty()) {
        wrapped_message(error_colour(theme), "Not applied: " + state.apply_error());
    }
    ImGui::PushItemWidth(-ImGui::GetFontSize() * 8.5f);
    if (ImGui::CollapsingHeader("DataLoader", ImGuiTreeNodeFlags_DefaultOpen)) loader_knobs(editor);
    if (ImGui::CollapsingHeader("Workload", ImGuiTreeNodeFlags_DefaultOpen)) workload_knobs(editor);
    if (ImGui::CollapsingHeader("GPU", ImGuiTreeNodeFlags_DefaultOpen)) gpu_knobs(editor);
    ImGui::PopItemWidth();
    if (!state.live()) ImGui::EndDisabled();
    ImGui::End();
}

void ControlsWindow::presets(ConfigEditor& editor) {
    const std::vector<Preset>& all = builtin_presets();
    const char* shown =
        preset_ >= 0 && preset_ < static_cast<int>(all.size()) ? all[preset_].name.c_str() : "Presets...";
    ImGui::SetNextItemWidth(-1.f);
    if (ImGui::BeginCombo("##preset", shown)) {
        for (int i = 0; i < static_cast<int>(all.size()); ++i) {
            if (ImGui::Selectable(all[i].name.c_str(), i == preset_)) {
                preset_ = i;
                editor.load_preset(all[i]);
            }
            if (ImGui::IsItemHovered()) {
                ImGui::BeginTooltip();
                ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.f);
                ImGui::TextUnformatted(all[i].description.c_str());
                ImGui::PopTextWrapPos();
                ImGui::EndTooltip();
            }
        }
        ImGui::EndCombo();
    }
    if (ImGui::Button("Reset to defaults")) {
        preset_ = -1;
        editor.reset_to_defaults();
    }
    if (preset_ >= 0 && preset_ < static_cast<int>(all.size()))
        wrapped_message(muted_colour(theme_), all[preset_].description);
}

void ControlsWindow::loader_knobs(ConfigEditor& editor) {
    PipelineConfig c = editor.draft();
    if (slider("num_workers", c.num_workers, 0, kMaxWorkersSlider, "%d"))
        editor.edit([&](PipelineConfig& d) { d.num_workers = c.num_workers; });
    help_marker(
        "Worker threads that build batches. 0 loads every batch inline in the train loop, which then "
        "cannot feed the GPU while it loads.");
    issues(editor, "num_workers");

    bool set = c.prefetch_factor.has_value();
    if (ImGui::Checkbox("##prefetch_set", &set))
        editor.edit([&](PipelineConfig& d) {
            d.prefetch_factor =
                set ? std::optional<int>(PipelineConfig::kDefaultPrefetchFactor) : std::nullopt;
        });
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Set prefetch_factor (unset: PyTorch's default of 2 with workers)");
    ImGui::SameLine();
    int prefetch = c.effective_prefetch_factor();
    ImGui::BeginDisabled(!set || !editor.prefetch_factor_applies());
    if (slider("prefetch_factor", prefetch, 1, kMaxPrefetchSlider, set ? "%d" : "unset (%d)"))
        editor.edit([&](PipelineConfig& d) { d.prefetch_factor = prefetch; });
    ImGui::EndDisabled();
    help_marker(
        "Batches each worker may have outstanding: at most prefetch_factor * num_workers are loaded ahead. "
        "Only meaningful with num_workers > 0.");
    issues(editor, "prefetch_factor");

    if (ImGui::Checkbox("pin_memory", &c.pin_memory))
        editor.edit([&](PipelineConfig& d) { d.pin_memory = c.pin_memory; });
    help_marker(
        "Copy batches into page-locked memory so H2D copies run at the link's speed and can be asynchronous. "
        "Off: copies come from pageable memory (hatched red in the timeline).");
    issues(editor, "pin_memory");
    ImGui::BeginDisabled(!c.pin_memory);
    if (combo("pin_mode", c.pin_mode, {{PinMode::thread, "thread (PyTorch)"}, {PinMode::direct, "direct"}}))
        editor.edit([&](PipelineConfig& d) { d.pin_mode = c.pin_mode; });
    ImGui::EndDisabled();
    help_marker(
        "thread: PyTorch's pin thread copies each collated batch into pinned memory. direct: workers collate "
        "straight into pinned buffers, with no extra copy.");
    issues(editor, "pin_mode");

    if (ImGui::Checkbox("non_blocking", &c.non_blocking))
        editor.edit([&](PipelineConfig& d) { d.non_blocking = c.non_blocking; });
    help_marker(
        "tensor.to(device, non_blocking=True): a copy from pinned memory returns at once; from pageable "
        "memory the thread still waits while the driver stages it.");
    if (ImGui::Checkbox("in_order", &c.in_order))
        editor.edit([&](PipelineConfig& d) { d.in_order = c.in_order; });
    help_marker(
        "Hand batches over in order: an early batch waits in the reorder buffer behind a slow one "
        "(head-of-line blocking). Off: batches go to the train loop as they arrive.");

    if (slider("batch_size", c.batch_size, 1, 1024, "%d", true))
        editor.edit([&](PipelineConfig& d) { d.batch_size = c.batch_size; });
    issues(editor, "batch_size");
}

void ControlsWindow::workload_knobs(ConfigEditor& editor) {
    PipelineConfig c = editor.draft();
    if (!ImGui::IsAnyItemActive() || shape_text_.empty()) shape_text_ = c.sample_shape.to_string();
    if (text_field("sample_shape", shape_text_)) {
        if (auto shape = parse_sample_shape(shape_text_)) {
            shape_error_.clear();
            editor.edit([&](PipelineConfig& d) { d.sample_shape = *shape; });
        } else {
            shape_error_ = "sample_shape should be sizes joined by 'x', e.g. 3x224x224.";
        }
    }
    help_marker(
        "uint8 images of this shape, converted to float32 while collating: a batch is "
        "batch_size * elements * 4 bytes.");
    if (!shape_error_.empty()) wrapped_message(error_colour(theme_), shape_error_);
    issues(editor, "sample_shape");
    ImGui::TextDisabled("batch: %.1f MB", static_cast<double>(c.batch_bytes()) / 1e6);

    if (slider("decode_us", c.decode_us, 0.0, 5000.0, "%.0f us", true))
        editor.edit([&](PipelineConfig& d) { d.decode_us = c.decode_us; });
    help_marker("CPU work per sample (spins a core): workers beyond the core count stop helping.");
    issues(editor, "decode_us");
    if (slider("io_us", c.io_us, 0.0, 5000.0, "%.0f us", true))
        editor.edit([&](PipelineConfig& d) { d.io_us = c.io_us; });
    help_marker(
        "Waiting per sample, as for storage or network reads (sleeps): overlaps across any number of "
        "workers.");
    issues(editor, "io_us");
    if (slider("kernel_us", c.kernel_us, 10.0, 100000.0, "%.0f us", true))
        editor.edit([&](PipelineConfig& d) { d.kernel_us = c.kernel_us; });
    help_marker("GPU work per batch.");
    issues(editor, "kernel_us");
    if (slider<int64_t>("d2h_bytes", c.d2h_bytes, 0, int64_t{256} << 20, "%lld B", true))
        editor.edit([&](PipelineConfig& d) { d.d2h_bytes = c.d2h_bytes; });
    help_marker("Result copied back to the host per batch.");
    issues(editor, "d2h_bytes");
    if (ImGui::InputScalar("fail_at_sample", ImGuiDataType_S64, &c.fail_at_sample))
        editor.edit([&](PipelineConfig& d) { d.fail_at_sample = c.fail_at_sample; });
    help_marker(
        "The dataset raises a ValueError on this sample, to show how a worker's error reaches the train loop "
        "(-1: never). Set it back to -1 to run again.");
    issues(editor, "fail_at_sample");
    if (ImGui::InputScalar("seed", ImGuiDataType_U64, &c.seed))
        editor.edit([&](PipelineConfig& d) { d.seed = c.seed; });
}

void ControlsWindow::gpu_knobs(ConfigEditor& editor) {
    PipelineConfig c = editor.draft();
    if (slider("streams", c.streams, 1, 16, "%d"))
        editor.edit([&](PipelineConfig& d) { d.streams = c.streams; });
    help_marker(
        "CUDA streams; batches (or chunks) take turns on them, so one batch's kernel can run while the next "
        "one copies.");
    issues(editor, "streams");
    if (slider("chunks", c.chunks, 1, 64, "%d")) editor.edit([&](PipelineConfig& d) { d.chunks = c.chunks; });
    help_marker("Pieces each batch is copied and processed in.");
    issues(editor, "chunks");
    if (combo("issue_order", c.issue_order,
              {{IssueOrder::per_chunk, "per-chunk"}, {IssueOrder::copies_first, "copies-first"}}))
        editor.edit([&](PipelineConfig& d) { d.issue_order = c.issue_order; });
    help_marker(
        "per-chunk: H2D, kernel, D2H of chunk 0, then of chunk 1, ...; copies-first: all copies, then all "
        "kernels, then all result copies.");
    if (combo("device", c.device,
              {{DeviceChoice::auto_detect, "auto"},
               {DeviceChoice::sim, "simulated GPU"},
               {DeviceChoice::cuda, "CUDA"}}))
        editor.edit([&](PipelineConfig& d) { d.device = c.device; });
    help_marker(
        "auto: the GPU when there is one, else the simulated GPU (the status bar says which, and why).");
    issues(editor, "device");
    if (!ImGui::IsAnyItemActive()) calibration_text_ = c.calibration;
    if (text_field("calibration", calibration_text_, ImGuiInputTextFlags_EnterReturnsTrue, "built-in H100"))
        editor.edit([&](PipelineConfig& d) { d.calibration = calibration_text_; });
    help_marker("A calibration file for the simulated GPU (from `pinscope probe`); press Enter to use it.");
    issues(editor, "calibration");
    if (ImGui::Checkbox("cupti", &c.cupti)) editor.edit([&](PipelineConfig& d) { d.cupti = c.cupti; });
    help_marker("Record GPU activity with CUPTI (CUDA device only); off to measure what recording costs.");
    if (slider<int64_t>("pinned_budget_mb", c.pinned_budget_mb, 0, 65536,
                        c.pinned_budget_mb ? "%lld MB" : "half the RAM", true))
        editor.edit([&](PipelineConfig& d) { d.pinned_budget_mb = c.pinned_budget_mb; });
    help_marker(
        "Page-locked memory the pipeline may hold; too much starves the machine (0: half of the RAM).");
    issues(editor, "pinned_budget_mb");
}

}  // namespace pinscope::gui
