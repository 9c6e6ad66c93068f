#pragma once
// Reading a JSON document that a user gave (a config, a calibration, a lesson, a preset) so that every way
// it can be wrong is a message a user can act on, never a library's exception text:
//   not valid JSON at line 3, column 14
//   the number 1e999 at "num_workers" (line 1, column 23) is beyond the range of a double
//   it nests deeper than 64 levels
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pinscope {

// What is wrong, without the file's name: the caller says which file it was.
class JsonTextError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// No file pinscope reads as JSON nests deeper than this; a hostile one could nest a million levels, which
// recursive code (dump(), a copy) would follow off the end of the stack.
constexpr int kMaxJsonDepth = 64;

// Parses `text` as one JSON value. Throws JsonTextError.
nlohmann::json parse_json_text(std::string_view text);

}  // namespace pinscope
