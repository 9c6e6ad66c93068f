#pragma once
// Sets of time as sorted lists of disjoint half-open intervals [start, end). Metrics are lengths of
// such sets (GPU busy = |union of kernels|, overlap = |copies ∩ kernels|), so the set operations live
// here once, each a single linear merge.
#include <vector>

#include "core/trace/interval.h"

namespace pinscope {

// Disjoint, sorted by start, no empty intervals: what every function below returns and expects
// (except normalized(), which makes one).
using IntervalList = std::vector<Interval>;

// Clips `raw` (any order, may overlap, may be empty) to `window` and merges it into a disjoint sorted
// list. Sorting is skipped when `raw` is already sorted by start, as spans of one lane are.
IntervalList normalized(IntervalList raw, Interval window);

IntervalList union_of(const IntervalList& a, const IntervalList& b);
IntervalList intersection(const IntervalList& a, const IntervalList& b);
IntervalList complement(const IntervalList& a, Interval window);        // window minus a
IntervalList difference(const IntervalList& a, const IntervalList& b);  // a minus b

TimeNs total_length(const IntervalList& list);

}  // namespace pinscope
