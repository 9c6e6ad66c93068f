#include "app/gui/advisor_window.h"

#include <algorithm>

#include <fmt/format.h>
#include <imgui.h>

#include "app/gui/model/word_wrap.h"
#include "core/config/knobs.h"
#include "core/units/units.h"

namespace pinscope::gui {
namespace {

constexpr TimeNs kLiveWindow = 5 * kNsPerS;  // the live run's last seconds the advice is about
constexpr TimeNs kLiveRenewal = 2 * kNsPerS;

ImVec4 verdict_colour(Verdict verdict, Theme theme) {
    const bool dark = theme == Theme::dark;
    switch (verdict) {
        case Verdict::highly:
        case Verdict::transfer_bound:
            return dark ? ImVec4(0.95f, 0.45f, 0.35f, 1) : ImVec4(0.7f, 0.15f, 0.1f, 1);
        case Verdict::moderately:
            return dark ? ImVec4(0.95f, 0.75f, 0.3f, 1) : ImVec4(0.6f, 0.4f, 0.0f, 1);
        case Verdict::not_input_bound:
            break;
    }
    return dark ? ImVec4(0.45f, 0.85f, 0.45f, 1) : ImVec4(0.1f, 0.5f, 0.1f, 1);
}

// Text wrapped at spaces only (ImGui's own wrapping breaks after '.', splitting "54.7 GB/s").
void wrapped(const std::string& text) {
    const float width = std::max(ImGui::GetContentRegionAvail().x, 1.f);
    const auto measure = [](std::string_view t) {
        return ImGui::CalcTextSize(t.data(), t.data() + t.size()).x;
    };
    for (const std::string& line : wrap_at_spaces(text, width, measure)) ImGui::TextUnformatted(line.c_str());
}

std::string lane_name(const TraceStore& store, LaneId lane) {
    for (const LaneInfo& info : store.lanes())
        if (info.id == lane) return info.name;
    return "lane";
}

}  // namespace

void AdvisorWindow::advise(const AppState& state) {
    const TraceStore& store = state.store();
    refused_.clear();
    if (store.span_count() == 0) return;
    if (const Capture* capture = state.capture(); capture && !capture->info.config_problem.empty()) {
        // Findings and fixes are about the config the run had: one that would not run says nothing.
        advice_.reset();
        refused_ = fmt::format(
            "No advice: this capture's config would not run ({}), so the advisor has "
            "nothing to say of it.",
            capture->info.config_problem);
        return;
    }
    if (const Capture* capture = state.capture(); capture && !capture->info.config) {
        advice_.reset();
        refused_ =
            "No advice: this trace records no pipeline config (pinscope did not run it), and the "
            "advisor's fixes are changes to one.";
        return;
    }
    if (const Capture* capture = state.capture()) {
        config_ = *capture->info.config;
        window_ = {capture->info.window.start, capture->info.window.end};
        if (window_.length() <= 0) window_ = {store.first_time(), store.last_time()};
    } else {
        config_ = state.session() ? state.session()->status().config : state.editor().applied();
        const TimeNs end = state.live_edge();
        window_ = {std::max(store.first_time(), end - kLiveWindow), end};
    }
    const MetricsWindow window{window_.start, window_.end};
    const Metrics metrics = compute_metrics(store, config_.batch_size, window, config_.slow_motion);
    AdviceContext context;
    context.window = window;
    if (state.device()) context.link_peak_gbps = state.device()->h2d_peak_gbps;
    advice_ = pinscope::advise(store, metrics, config_, context);
}

void AdvisorWindow::finding(AppState& state, const Finding& f, size_t index, TimelineViewport& viewport) {
    ImGui::PushID(static_cast<int>(index));
    const std::string header =
        fmt::format("{}. {} (costs {})###finding", index + 1, f.title, format_share(f.cost));
    if (ImGui::CollapsingHeader(header.c_str(), index == 0 ? ImGuiTreeNodeFlags_DefaultOpen : 0)) {
        ImGui::TextDisabled("[%s]", f.rule_id.c_str());
        wrapped(f.explanation);
        for (size_t e = 0; e < f.evidence.size(); ++e) {
            const SpanRef& ref = f.evidence[e];
            const std::string label = fmt::format("{} at {} for {}##e{}", lane_name(state.store(), ref.lane),
                                                  format_duration(ref.start - state.time_origin()),
                                                  format_duration(ref.end - ref.start), e);
            if (ImGui::SmallButton(label.c_str())) {  // show the spans, with as much again around them
                const TimeNs pad = std::max<TimeNs>(ref.end - ref.start, kNsPerMs);
                viewport.set_following(false);
                viewport.show({ref.start - pad, ref.end + pad});
            }
        }
        if (!f.fix.empty()) {
            wrapped(f.fix_text);
            const bool live = state.session() != nullptr;
            ImGui::BeginDisabled(!live);
            if (ImGui::Button(fmt::format("Apply: {}", f.fix.dump()).c_str())) {
                const nlohmann::json fix = f.fix;
                state.editor().edit([&](PipelineConfig& draft) { draft = with_fix(draft, fix); });
                stale_ = true;  // the next advice is about the fixed run, once it has run a while
            }
            ImGui::EndDisabled();
            if (!live) ImGui::TextDisabled("(a capture: run its config live to apply fixes)");
        } else if (!f.fix_text.empty()) {
            wrapped(f.fix_text);
        }
    }
    ImGui::PopID();
}

void AdvisorWindow::draw(AppState& state, Theme theme, TimelineViewport& viewport) {
    if (!open_) return;
    // A live run's advice follows it: renewed every 2 s (and at once after a fix), so it is about the run
    // as it is now; a capture's is about its recorded window, once.
    const bool renew = state.live() && now_ns() - advised_at_ >= kLiveRenewal;
    if (stale_ || renew || !advice_) {
        advise(state);
        advised_at_ = now_ns();
        stale_ = false;
    }
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowSize(ImVec2(io.DisplaySize.x * 0.42f, io.DisplaySize.y * 0.6f), ImGuiCond_Appearing);
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.55f, io.DisplaySize.y * 0.2f), ImGuiCond_Appearing);
    if (ImGui::Begin("Advisor", &open_, ImGuiWindowFlags_NoCollapse)) {
        const std::string about =
            state.live() ? fmt::format("about the last {} of the run, renewed every 2 s",
                                       format_duration(window_.length()))
                         : fmt::format("about the capture's {}", format_duration(window_.length()));
        ImGui::TextDisabled("%s", about.c_str());
        if (!refused_.empty()) {
            wrapped(refused_);
        } else if (!advice_) {
            ImGui::TextUnformatted("Nothing to advise on yet: the run has no spans.");
        } else {
            ImGui::PushStyleColor(ImGuiCol_Text, verdict_colour(advice_->verdict, theme));
            wrapped(advice_->verdict_line);
            ImGui::PopStyleColor();
            ImGui::Separator();
            if (advice_->findings.empty())
                ImGui::TextWrapped("No finding: nothing here costs 5%% of the time.");
            for (size_t i = 0; i < advice_->findings.size(); ++i)
                finding(state, advice_->findings[i], i, viewport);
        }
    }
    ImGui::End();
}

}  // namespace pinscope::gui
