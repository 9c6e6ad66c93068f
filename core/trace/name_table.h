#pragma once
// The string table that Span::name indexes: each distinct name once, id 0 (kNoName) for "". Not
// thread-safe: the TraceStore's belongs to its one owner, and Trace guards its own with a mutex.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/trace/span.h"

namespace pinscope {

class NameTable {
  public:
    uint32_t intern(std::string_view name) {
        if (name.empty()) return kNoName;
        if (names_.size() > kMaxNameId) throw std::length_error("a trace holds at most 2^24 span names");
        auto [at, added] = ids_.try_emplace(std::string(name), static_cast<uint32_t>(names_.size()));
        if (added) names_.push_back(at->first);
        return at->second;
    }
    std::string_view name(uint32_t id) const { return id < names_.size() ? names_[id] : std::string_view(); }
    const std::vector<std::string>& names() const { return names_; }
    size_t size() const { return names_.size(); }

  private:
    std::vector<std::string> names_{""};
    std::unordered_map<std::string, uint32_t> ids_;
};

}  // namespace pinscope
