#pragma once
// Exit codes of every pinscope command: 0 ok, 2 bad input (one line on stderr naming the option and
// the fix), 1 failure at run time.
#include <stdexcept>

namespace pinscope {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// Bad input from the user: a flag, a value, a file. main() prints it as one line and exits 2.
class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

}  // namespace pinscope
