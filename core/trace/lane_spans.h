#pragma once
// The spans of one lane, sorted by start, with what a windowed read needs to find the first span that
// still runs at a given time in O(log n): spans may overlap (a long span reaches over short ones after
// it), so sorting by start alone cannot say where a window's spans begin. Every kBlock spans keep the
// latest end seen so far ("reach"); the first block that reaches past a time holds the first span that
// ends after it. Blocks also keep the summed durations before them, so how busy a run of spans kept
// the lane costs a block's worth of additions at most, however long the run.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/trace/interval.h"
#include "core/trace/span.h"

namespace pinscope {

class LaneSpans {
  public:
    static constexpr size_t kBlock = 64;

    // Keeps start order: appends, or inserts a late span (one that starts before the last) in place.
    void add(const Span& span);
    // Replaces the lane with `spans`, which must be sorted by start.
    void assign(std::vector<Span> spans);
    // Drops every span that ended before `time`; returns how many.
    size_t erase_ended_before(TimeNs time);
    void clear();

    std::span<const Span> all() const { return spans_; }
    size_t size() const { return spans_.size(); }
    bool empty() const { return spans_.empty(); }
    // The latest end of any span; only for a lane that is not empty.
    TimeNs latest_end() const { return reach_.back(); }
    // The deepest nesting of any span added since the lane was last cleared or assigned (0: none nests).
    // Spans erased since may have been deeper: it never shrinks, so a view's rows do not jump.
    uint32_t max_depth() const { return max_depth_; }

    // The spans that can touch the closed window [window.start, window.end]: from the first span that
    // ends at or after window.start to the last that starts at or before window.end. A span in between
    // may have ended before the window (a longer one reached over it): callers skip it by its end.
    std::span<const Span> touching(Interval window) const;
    // The index in all() of the first span of touching(window).
    size_t first_touching(Interval window) const;

    // The summed durations of all()[0, index), reading at most half a block of spans. Its difference at
    // two indices is how long the spans between kept the lane busy, counting any overlap twice.
    TimeNs duration_before(size_t index) const;

  private:
    void rebuild_blocks(size_t from_block);

    std::vector<Span> spans_;
    std::vector<TimeNs> reach_;   // reach_[b]: the latest end among spans_[0 .. (b + 1) * kBlock)
    std::vector<TimeNs> summed_;  // summed_[b]: the summed durations of spans_[0 .. b * kBlock)
    TimeNs total_ = 0;            // the summed durations of every span
    uint32_t max_depth_ = 0;
};

}  // namespace pinscope
