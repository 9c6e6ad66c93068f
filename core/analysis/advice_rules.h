#pragma once
// The advisor's rules, each a small function of the facts of one window: a finding when the rule fires,
// nullopt when it does not. A rule fills in what it found (explanation, cost, evidence, fix, fix_text,
// and a title only where it varies); its id, title, metric and direction are its row in advisor.cpp's
// table. advisor.h says what a finding holds and the thresholds they share.
#include <optional>

#include "core/analysis/advice_facts.h"

namespace pinscope {

using Rule = std::optional<Finding> (*)(const AdviceFacts& facts);

// Copies (advice_rules_copies.cpp)
std::optional<Finding> pageable_async_memcpy(const AdviceFacts& f);
std::optional<Finding> sync_memcpy(const AdviceFacts& f);
std::optional<Finding> low_overlap(const AdviceFacts& f);
std::optional<Finding> link_bound(const AdviceFacts& f);

// The loader (advice_rules_loader.cpp)
std::optional<Finding> gpu_starvation(const AdviceFacts& f);
std::optional<Finding> pin_bound(const AdviceFacts& f);
std::optional<Finding> prefetch_too_shallow(const AdviceFacts& f);
std::optional<Finding> oversubscribed_workers(const AdviceFacts& f);

// Pinned memory (advice_rules_memory.cpp)
std::optional<Finding> prefetch_too_deep(const AdviceFacts& f);
std::optional<Finding> pinned_over_budget(const AdviceFacts& f);

// Whether the workers' per-sample cost is mostly CPU work (decode) rather than waiting (io): then they
// need a core each, and workers beyond the cores do not help.
bool cpu_bound_workers(const PipelineConfig& config);

}  // namespace pinscope
