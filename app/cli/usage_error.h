#pragma once
// Exit codes of every pinscope command: 0 ok, 2 bad input (one line on stderr naming the option and
// the fix), 1 failure at run time.
#include <stdexcept>
#include <string>

#include "app/cli/cli_words.h"
#include "core/device/calibration.h"
#include "core/device/device.h"

namespace pinscope {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// Bad input from the user: a flag, a value, a file. main() prints it as one line and exits 2.
class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Runs `open` (which makes a session or an app on a device) and reports a device that cannot be had
// (--device cuda without a GPU, an unreadable --calibration) as bad input: exit 2, not a failed run.
template <class Open>
auto opening_device(Open&& open) -> decltype(open()) {
    try {
        return open();
    } catch (const DeviceError& e) {
        throw UsageError(cli_words(e.what()));
    } catch (const CalibrationError& e) {
        throw UsageError(std::string("--calibration: ") + cli_words(e.what()));
    }
}

}  // namespace pinscope
