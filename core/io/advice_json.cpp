#include "core/io/advice_json.h"

namespace pinscope {

nlohmann::json advice_json(const Advice& advice) {
    nlohmann::json findings = nlohmann::json::array();
    for (const Finding& f : advice.findings) {
        nlohmann::json evidence = nlohmann::json::array();
        for (const SpanRef& ref : f.evidence)
            evidence.push_back(
                {{"lane", ref.lane == kNoLane ? nlohmann::json(nullptr) : nlohmann::json(ref.lane)},
                 {"start_ns", ref.start},
                 {"end_ns", ref.end},
                 {"batch", ref.batch == kNoBatch ? nlohmann::json(nullptr) : nlohmann::json(ref.batch)}});
        findings.push_back({{"rule", f.rule_id},
                            {"title", f.title},
                            {"explanation", f.explanation},
                            {"cost", f.cost},
                            {"evidence", std::move(evidence)},
                            {"fix", f.fix},
                            {"fix_text", f.fix_text},
                            {"metric", f.metric},
                            {"should", std::string(direction_key(f.should))}});
    }
    return {{"verdict", std::string(verdict_key(advice.verdict))},
            {"input_share", advice.input_share},
            {"transfer_share", advice.transfer_share},
            {"verdict_line", advice.verdict_line},
            {"findings", std::move(findings)}};
}

}  // namespace pinscope
