#pragma once
// The categories of a trace's spans: pinscope's own kinds (span.h) and, after them, the categories an
// imported trace brings ("cpu_op", "cuda_runtime", "user_annotation"...). Span::kind holds the id. A
// trace has few categories (a PyTorch trace about fifteen), so a table of 256 ids never fills in
// practice; if one does, every further category shares the last id, named kOverflowCategory, and the
// spans are still kept and drawn. Not thread-safe, like NameTable: one owner writes it.
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/span.h"

namespace pinscope {

class CategoryTable {
  public:
    static constexpr std::string_view kOverflowCategory = "(other categories)";

    // The id of `name`: one of pinscope's kinds when it is one's name, else a category of its own.
    SpanKind intern(std::string_view name) {
        for (int k = 0; k < kSpanKindCount; ++k)
            if (kSpanKindNames[k] == name) return static_cast<SpanKind>(k);
        for (size_t i = 0; i < custom_.size(); ++i)
            if (custom_[i] == name) return from_index(i);
        if (custom_.size() + 1 >= kMaxCustom) {
            if (custom_.size() + 1 == kMaxCustom) custom_.emplace_back(kOverflowCategory);
            return from_index(kMaxCustom - 1);
        }
        custom_.emplace_back(name);
        return from_index(custom_.size() - 1);
    }

    std::string_view name(SpanKind kind) const {
        if (is_builtin(kind)) return span_kind_name(kind);
        const size_t i = static_cast<size_t>(kind) - kSpanKindCount;
        return i < custom_.size() ? std::string_view(custom_[i]) : std::string_view("?");
    }

    // True when `kind` is pinscope's own or one this table named.
    bool knows(SpanKind kind) const {
        return is_builtin(kind) || static_cast<size_t>(kind) - kSpanKindCount < custom_.size();
    }

    // The imported categories, in id order from kSpanKindCount: what a capture's CATS section holds.
    const std::vector<std::string>& custom() const { return custom_; }
    size_t size() const { return kSpanKindCount + custom_.size(); }

  private:
    static constexpr size_t kMaxCustom = kMaxSpanKinds - kSpanKindCount;
    static SpanKind from_index(size_t i) { return static_cast<SpanKind>(kSpanKindCount + i); }

    std::vector<std::string> custom_;
};

}  // namespace pinscope
