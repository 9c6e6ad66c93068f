#include "app/gui/sweep_window.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>
#include <imgui.h>

#include "app/gui/text_field.h"
#include "app/gui/ui_style.h"
#include "core/units/units.h"

namespace pinscope::gui {
namespace {

// Knobs of the workload and the loader that a heatmap axis can take: not the machine, not the run's
// length, not the failure and seed knobs, and not shapes or file names.
bool can_be_an_axis(const Knob& k) {
    const bool typed = k.type == KnobType::integer || k.type == KnobType::number ||
                       k.type == KnobType::boolean || k.type == KnobType::choice;
    return typed && !k.machine && k.group != KnobGroup::length && k.key != "fail_at_sample" &&
           k.key != "seed";
}

size_t index_of(std::string_view key) {
    return static_cast<size_t>(&knob(key) - knobs().data());
}

// What an axis starts with when its knob is picked: four values from where its slider starts.
std::string first_spec(const Knob& k) {
    switch (k.type) {
        case KnobType::boolean:
            return "both";
        case KnobType::choice:
            return "all";
        case KnobType::integer: {
            const double low = std::max(k.slider_low(), k.min);
            return fmt::format("{}..{}", knob_number(low), knob_number(std::min(low + 3, k.slider_high())));
        }
        default: {
            const double low = k.slider_low(), high = std::min(k.slider_high(), std::max(low, 1.0) * 1000);
            const double step = (high - low) / 3;
            return fmt::format("{}..{}:{}", knob_number(low), knob_number(high), knob_number(step));
        }
    }
}

ImVec2 plus(ImVec2 a, ImVec2 b) {
    return ImVec2(a.x + b.x, a.y + b.y);
}

}  // namespace

SweepWindow::SweepWindow() : x_knob_(index_of("num_workers")), y_knob_(index_of("prefetch_factor")) {}

SweepWindow::~SweepWindow() = default;

void SweepWindow::draw(AppState& state, Theme theme) {
    if (job_ && job_->finished()) finish_job();
    if (!open_) return;
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.12f), ImGuiCond_Appearing,
                            ImVec2(0.5f, 0.f));
    if (!ImGui::Begin("Sweep", &open_, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::End();
        return;
    }
    settings(state);
    if (!error_.empty()) wrapped_message(error_colour(theme), error_);
    if (job_) progress(theme);
    if (heatmap_) heatmaps(state, theme);
    ImGui::End();
}

void SweepWindow::axis_picker(const char* label, size_t& chosen, std::string& spec, size_t other) {
    ImGui::PushID(label);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.f);
    if (ImGui::BeginCombo("##knob", std::string(knobs()[chosen].key).c_str())) {
        for (size_t i = 0; i < knobs().size(); ++i) {
            if (i == other || !can_be_an_axis(knobs()[i])) continue;
            if (ImGui::Selectable(std::string(knobs()[i].key).c_str(), i == chosen) && i != chosen) {
                chosen = i;
                spec = first_spec(knobs()[i]);
            }
        }
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9.f);
    text_field("##spec", spec, 0, "0..8, 1,2,4, both");
    ImGui::SameLine();
    ImGui::TextUnformatted(label);
    ImGui::PopID();
}

void SweepWindow::settings(AppState& state) {
    ImGui::BeginDisabled(job_ != nullptr);
    axis_picker("columns", x_knob_, x_spec_, y_knob_);
    axis_picker("rows", y_knob_, y_spec_, x_knob_);
    const bool pin_is_an_axis = knobs()[x_knob_].key == "pin_memory" || knobs()[y_knob_].key == "pin_memory";
    ImGui::BeginDisabled(pin_is_an_axis);
    ImGui::Checkbox("pin_memory both ways: a heatmap each", &both_pinnings_);
    ImGui::EndDisabled();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.f);
    ImGui::SliderFloat("seconds each", &seconds_each_, 0.2f, 10.f, "%.1f s");
    ImGui::EndDisabled();
    if (job_) {
        if (ImGui::Button("Stop")) job_->stop();
    } else if (ImGui::Button("Run")) {
        run(state, seconds_each_);
    }
    help_marker(
        "Specs: a..b (every integer), a..b:step, a list such as 1,2,4, both, all. Each config runs for "
        "'seconds each' on this app's device; the live pipeline stops meanwhile and starts again after.");
}

void SweepWindow::run(AppState& state, double seconds_each) {
    seconds_each_ = static_cast<float>(seconds_each);  // the slider shows what runs (--run-sweep too)
    error_.clear();
    applied_.clear();
    try {
        std::vector<SweepAxis> axes{parse_sweep_axis(knobs()[x_knob_], x_spec_),
                                    parse_sweep_axis(knobs()[y_knob_], y_spec_)};
        const bool pin_is_an_axis =
            knobs()[x_knob_].key == "pin_memory" || knobs()[y_knob_].key == "pin_memory";
        if (both_pinnings_ && !pin_is_an_axis) axes.push_back(parse_sweep_axis(knob("pin_memory"), "both"));
        PipelineConfig base = state.editor().applied();
        base.batches = 0;
        SweepGrid grid = expand_sweep(base, std::move(axes));
        if (grid.configs.empty()) {
            error_ = "no config of the sweep can run: " + grid.problems.front();
            return;
        }
        if (state.live()) {  // two pipelines on the same cores would measure each other
            state.session()->stop();
            paused_live_ = true;
        }
        outcome_.reset();
        heatmap_.reset();
        job_ = std::make_unique<SweepJob>(std::move(grid), seconds_each, predictor_);
    } catch (const SweepSpecError& e) {
        error_ = e.what();
    }
}

void SweepWindow::finish_job() {
    outcome_ = *job_->outcome();
    job_.reset();
    const SweepGrid& grid = outcome_->grid;
    const std::optional<size_t> x = axis_of(grid, knobs()[x_knob_].key);
    const std::optional<size_t> y = axis_of(grid, knobs()[y_knob_].key);
    heatmap_.reset();
    if (x)
        heatmap_ = make_heatmap(*outcome_, *x, y);
    else if (y)
        heatmap_ = make_heatmap(*outcome_, *y, std::nullopt);
    verdict_ = tie_verdict(outcome_->results);
    resume_ = std::exchange(paused_live_, false);
    std::string line = "pinscope: " + summary();
    if (const std::optional<size_t> best = best_result(outcome_->results))
        line += fmt::format("; best: {} - {} samples/s; {}", grid.label(outcome_->results[*best].config),
                            format_short_count(outcome_->results[*best].samples_per_s), verdict_);
    fmt::print(stderr, "{}\n", line);  // a log of what ran, for headless runs of the app
}

std::string SweepWindow::summary() const {
    const SweepGrid& grid = outcome_->grid;
    std::string text = fmt::format("sweep: {} configs ({}), {} distinct ran", grid.cells(), grid.shape(),
                                   grid.configs.size());
    if (grid.collapsed() > 0) text += fmt::format("; {} cells repeat another's config", grid.collapsed());
    if (outcome_->stopped) text += "; stopped before the end";
    return text;
}

void SweepWindow::progress(Theme theme) {
    const SweepJob::Progress p = job_->progress();
    const bool again = p.confirm_total > 0;
    const size_t done = again ? p.confirm_done : p.done, total = again ? p.confirm_total : p.total;
    const float share = total > 0 ? static_cast<float>(done) / static_cast<float>(total) : 0.f;
    const std::string text =
        p.current.empty() ? std::string("finishing")
                          : fmt::format("{}[{}/{}] {}  ... eta {:.0f} s", again ? "the leaders again " : "",
                                        std::min(done + 1, total), total, p.current, p.eta_seconds);
    ImGui::ProgressBar(share, ImVec2(ImGui::GetFontSize() * 36.f, 0.f), text.c_str());
    if (p.predicted_samples_per_s)
        ImGui::Text("predicted: %s samples/s", format_short_count(*p.predicted_samples_per_s).c_str());
    if (paused_live_)
        wrapped_message(
            warning_colour(theme),
            fmt::format("The live pipeline is stopped while the sweep runs, so it does not compete "
                        "for the {} cores; it starts again when the sweep ends.",
                        std::thread::hardware_concurrency()));
}

void SweepWindow::heatmaps(AppState& state, Theme theme) {
    const SweepGrid& grid = outcome_->grid;
    ImGui::Separator();
    ImGui::TextUnformatted(summary().c_str());
    ImGui::TextColored(muted_colour(theme), "samples/s: columns %s, rows %s", heatmap_->x_knob.c_str(),
                       heatmap_->y_knob.empty() ? "-" : heatmap_->y_knob.c_str());
    for (size_t p = 0; p < heatmap_->panels.size(); ++p) {
        if (p > 0) ImGui::SameLine(0.f, ImGui::GetFontSize() * 2.f);
        panel(state, theme, p);
    }
    colour_scale(theme);
    if (const std::optional<size_t> best = best_result(outcome_->results)) {
        const SweepResult& r = outcome_->results[*best];
        const double slowest = slowest_samples_per_s(outcome_->results);
        ImGui::Text("best: %s - %s samples/s (%.1fx the slowest)", grid.label(r.config).c_str(),
                    format_short_count(r.samples_per_s).c_str(),
                    slowest > 0 ? r.samples_per_s / slowest : 0.0);
        if (!verdict_.empty()) wrapped_message(muted_colour(theme), verdict_);
    }
    ImGui::TextColored(muted_colour(theme), "Hover a cell for its metrics; click it to run its config live.");
    if (!applied_.empty()) ImGui::TextUnformatted(applied_.c_str());
}

void SweepWindow::panel(AppState& state, Theme theme, size_t index) {
    const SweepHeatmap& map = *heatmap_;
    const float font = ImGui::GetFontSize();
    const ImVec2 cell(font * 4.6f, font * 2.4f);
    const float label_width = font * 3.2f, gap = 2.f;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    ImGui::BeginGroup();
    ImGui::TextUnformatted(map.panels[index].title.c_str());
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    for (size_t column = 0; column < map.columns(); ++column) {
        const char* label = map.x_labels[column].c_str();
        const float x =
            origin.x + label_width + (column + 0.5f) * cell.x - ImGui::CalcTextSize(label).x * 0.5f;
        draw->AddText(ImVec2(x, origin.y), text, label);
    }
    const ImVec2 grid_origin(origin.x + label_width, origin.y + font * 1.4f);
    for (size_t row = 0; row < map.rows(); ++row) {
        const char* label = map.y_labels[row].c_str();
        draw->AddText(ImVec2(origin.x + label_width - ImGui::CalcTextSize(label).x - font * 0.5f,
                             grid_origin.y + (row + 0.5f) * cell.y - font * 0.5f),
                      text, label);
        for (size_t column = 0; column < map.columns(); ++column) {
            const HeatmapCell& c = map.at(index, column, row);
            const ImVec2 p0 = plus(grid_origin, ImVec2(column * cell.x, row * cell.y));
            const ImVec2 p1 = plus(p0, ImVec2(cell.x - gap, cell.y - gap));
            const bool measured = c.problem.empty();
            const Rgb colour = heat_colour(c.shade);
            draw->AddRectFilled(p0, p1, measured ? to_imu32(colour) : ImGui::GetColorU32(ImGuiCol_FrameBg));
            const bool bright = measured && c.shade > 0.6;
            const ImU32 ink = bright ? IM_COL32(20, 20, 20, c.repeats ? 150 : 255)
                                     : IM_COL32(245, 245, 245, c.repeats ? 150 : 255);
            const std::string value = measured ? format_short_count(c.samples_per_s) : std::string("n/a");
            const ImVec2 size = ImGui::CalcTextSize(value.c_str());
            const char* mark = c.best ? "best" : c.tied ? "tied" : nullptr;
            const float lines = mark ? 2.f : 1.f;
            const float top = p0.y + (cell.y - gap - lines * font) * 0.5f;
            draw->AddText(ImVec2(p0.x + (cell.x - gap - size.x) * 0.5f, top), measured ? ink : text,
                          value.c_str());
            if (mark) {
                const ImVec2 mark_size = ImGui::CalcTextSize(mark);
                draw->AddText(ImVec2(p0.x + (cell.x - gap - mark_size.x) * 0.5f, top + font), ink, mark);
            }
            if (c.best)
                draw->AddRect(ImVec2(p0.x - 1, p0.y - 1), ImVec2(p1.x + 1, p1.y + 1),
                              to_imu32(palette(theme).highlight), 0.f, 0, 3.f);
            ImGui::SetCursorScreenPos(p0);
            ImGui::PushID(static_cast<int>((index * map.rows() + row) * map.columns() + column));
            if (ImGui::InvisibleButton("cell", ImVec2(cell.x - gap, cell.y - gap))) apply_cell(state, c);
            if (ImGui::IsItemHovered()) cell_tooltip(c);
            ImGui::PopID();
        }
    }
    ImGui::SetCursorScreenPos(origin);
    ImGui::Dummy(ImVec2(label_width + map.columns() * cell.x, font * 1.4f + map.rows() * cell.y));
    ImGui::EndGroup();
}

void SweepWindow::cell_tooltip(const HeatmapCell& c) const {
    ImGui::BeginTooltip();
    const SweepGrid& grid = outcome_->grid;
    if (c.result != HeatmapCell::kNoResult && c.result < outcome_->results.size()) {
        const SweepResult& r = outcome_->results[c.result];
        ImGui::TextUnformatted(grid.label(r.config).c_str());
        if (r.ran) {
            ImGui::Text("samples/s     %s", format_count(r.samples_per_s).c_str());
            if (r.runs.size() > 1) {
                const auto [slowest, fastest] = std::ranges::minmax(r.runs);
                ImGui::Text("              the median of %zu runs, %s to %s", r.runs.size(),
                            format_count(slowest).c_str(), format_count(fastest).c_str());
            }
            if (r.predicted_samples_per_s)
                ImGui::Text("predicted     %s", format_count(*r.predicted_samples_per_s).c_str());
            ImGui::Text("stall         %s", format_share(r.stall).c_str());
            ImGui::Text("overlap       %s", format_share(r.overlap).c_str());
            ImGui::Text("GPU busy      %s", format_share(r.gpu_busy).c_str());
            ImGui::Text("H2D           %s", format_gbps(r.h2d_gbps).c_str());
            ImGui::Text("pinned held   %s", format_bytes(r.pinned_bytes_max).c_str());
            if (c.repeats)
                ImGui::TextUnformatted("The same config as another cell: a knob does not apply here.");
            ImGui::TextUnformatted("Click: run this config live.");
        }
    }
    if (!c.problem.empty()) {
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.f);
        ImGui::TextUnformatted(c.problem.c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::EndTooltip();
}

void SweepWindow::apply_cell(AppState& state, const HeatmapCell& c) {
    if (c.result == HeatmapCell::kNoResult || c.result >= outcome_->results.size()) return;
    if (!state.live()) {
        applied_ = "A capture is shown: there is no live pipeline to run the config on.";
        return;
    }
    const SweepResult& r = outcome_->results[c.result];
    const SweepGrid& grid = outcome_->grid;
    state.editor().edit([&](PipelineConfig& config) {
        for (const SweepAxis& axis : grid.axes) axis.knob->set(config, axis.knob->get(r.config));
        reset_inapplicable_knobs(config);
    });
    applied_ = "Running " + grid.label(r.config) + " live.";
}

void SweepWindow::colour_scale(Theme) const {
    const float font = ImGui::GetFontSize();
    const ImVec2 size(font * 16.f, font * 0.8f);
    const std::string low = format_short_count(heatmap_->low) + " samples/s";
    const std::string high = format_short_count(heatmap_->high);
    ImGui::TextUnformatted(low.c_str());
    ImGui::SameLine();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 at(p.x, p.y + (ImGui::GetTextLineHeight() - size.y) * 0.5f);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    constexpr int kSteps = 32;
    for (int i = 0; i < kSteps; ++i) {
        const float x0 = at.x + size.x * i / kSteps, x1 = at.x + size.x * (i + 1) / kSteps;
        draw->AddRectFilled(ImVec2(x0, at.y), ImVec2(x1, at.y + size.y),
                            to_imu32(heat_colour((i + 0.5) / kSteps)));
    }
    ImGui::Dummy(ImVec2(size.x, ImGui::GetTextLineHeight()));
    ImGui::SameLine();
    ImGui::TextUnformatted(high.c_str());
}

}  // namespace pinscope::gui
