#pragma once
// Core names knobs by their config keys ("num_workers", "use device=sim"); the command line names them
// by their flags. These two functions are where one becomes the other.
#include <string>
#include <string_view>

namespace pinscope {

// "--num-workers" for "num_workers".
std::string flag_for(std::string_view config_key);
// "--no-pin-memory" for "pin_memory": the flag that turns a boolean knob off.
std::string negated_flag_for(std::string_view config_key);

// A core message in command-line words: each `key=value` of a knob becomes its flag ("use
// num_workers=0" -> "use --num-workers 0", "pin_memory=false" -> "--no-pin-memory").
std::string cli_words(std::string_view message);

}  // namespace pinscope
