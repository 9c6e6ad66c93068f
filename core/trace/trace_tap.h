#pragma once
// What else sees every span and counter sample a collection moves into the store, in the order they
// are collected: a capture streamed to disk as the run records (core/io/capture_stream.h), which keeps
// what the store's memory bound later evicts. Called on the collector's thread with the store's write
// lock held, so a tap that blocks (a full disk queue) holds the recording back rather than lose a span.
// Name ids are the store's.
#include "core/trace/span.h"

namespace pinscope {

class TraceTap {
  public:
    virtual ~TraceTap() = default;
    virtual void span(const Span& span) = 0;
    virtual void counter(const CounterSample& sample) = 0;
};

}  // namespace pinscope
