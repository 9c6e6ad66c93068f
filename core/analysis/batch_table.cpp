#include "core/analysis/batch_table.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace pinscope {

std::vector<BatchRow> batch_rows(const TraceStore& store, Interval window) {
    const bool everything = window.start == 0 && window.end == 0;
    if (everything) window = {std::numeric_limits<TimeNs>::min(), std::numeric_limits<TimeNs>::max()};
    std::unordered_map<int64_t, BatchRow> rows;
    for (const LaneInfo& lane : store.lanes()) {
        for (const Span& span : store.spans_touching(lane.id, window)) {
            if (span.batch == kNoBatch || !is_builtin(span.kind) || span.end < window.start ||
                span.end > window.end)
                continue;
            auto [at, added] = rows.try_emplace(span.batch);
            BatchRow& row = at->second;
            if (added) {
                row.batch = span.batch;
                row.first_start = span.start;
                row.last_end = span.end;
            }
            row.first_start = std::min(row.first_start, span.start);
            row.last_end = std::max(row.last_end, span.end);
            const int kind = static_cast<int>(span.kind);
            row.stage_ns[kind] += std::max<TimeNs>(0, span.duration());
            ++row.spans[kind];
            if (span.kind == SpanKind::h2d) {
                row.h2d_memory = span.memory;  // a batch's copies all come from one kind of memory
                row.h2d_bytes += span.bytes;
            }
        }
    }
    std::vector<BatchRow> out;
    out.reserve(rows.size());
    for (auto& [batch, row] : rows) out.push_back(row);
    std::sort(out.begin(), out.end(), [](const BatchRow& a, const BatchRow& b) { return a.batch < b.batch; });
    return out;
}

}  // namespace pinscope
