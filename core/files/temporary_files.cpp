#include "core/files/temporary_files.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>

namespace pinscope {
namespace {

// A slot is free (0), being filled or emptied (1), or holds a path a handler may unlink (2). Only the
// states are atomic: a handler reads a path only after seeing 2, which the filler stores last.
constexpr int kFree = 0, kBusy = 1, kReady = 2;
constexpr size_t kSlots = 64;
constexpr size_t kPathBytes = 4096;

struct Slot {
    std::atomic<int> state{kFree};
    char path[kPathBytes];
};

std::array<Slot, kSlots> g_slots;
std::atomic<int> g_stop_signal{0};

static_assert(std::atomic<int>::is_always_lock_free, "signal handlers may only touch lock-free atomics");

}  // namespace

int register_temporary(const std::filesystem::path& path) {
    const std::string& text = path.native();
    if (text.size() >= kPathBytes) return -1;
    for (size_t i = 0; i < kSlots; ++i) {
        int expected = kFree;
        if (!g_slots[i].state.compare_exchange_strong(expected, kBusy)) continue;
        std::memcpy(g_slots[i].path, text.c_str(), text.size() + 1);
        g_slots[i].state.store(kReady, std::memory_order_release);
        return static_cast<int>(i);
    }
    return -1;
}

void forget_temporary(int slot) {
    if (slot < 0 || slot >= static_cast<int>(kSlots)) return;
    g_slots[static_cast<size_t>(slot)].state.store(kFree, std::memory_order_release);
}

void remove_all_temporaries_now() noexcept {
    for (Slot& slot : g_slots)
        if (slot.state.load(std::memory_order_acquire) == kReady) ::unlink(slot.path);
}

int stop_signal() {
    return g_stop_signal.load(std::memory_order_relaxed);
}

void note_stop_signal(int signal_number) noexcept {
    g_stop_signal.store(signal_number, std::memory_order_relaxed);
}

void clear_stop_signal() {
    g_stop_signal.store(0, std::memory_order_relaxed);
}

}  // namespace pinscope
