#pragma once
// Keys the app answers to. ImGui 1.86 names only the keys text editing needs (ImGuiKey_Space, ...);
// the rest are the platform backend's key codes, which index io.KeysDown. GLFW's codes, spelled
// here once, keep GLFW out of the view files.
namespace pinscope::gui::keys {

constexpr int kF = 70;             // GLFW_KEY_F
constexpr int kZ = 90;             // GLFW_KEY_Z
constexpr int kR = 82;             // GLFW_KEY_R
constexpr int kB = 66;             // GLFW_KEY_B
constexpr int kO = 79;             // GLFW_KEY_O
constexpr int kE = 69;             // GLFW_KEY_E
constexpr int kZero = 48;          // GLFW_KEY_0
constexpr int kMinus = 45;         // GLFW_KEY_MINUS
constexpr int kEqual = 61;         // GLFW_KEY_EQUAL (the + key without Shift on most layouts)
constexpr int kPadAdd = 334;       // GLFW_KEY_KP_ADD
constexpr int kPadSubtract = 333;  // GLFW_KEY_KP_SUBTRACT
constexpr int kP = 80;             // GLFW_KEY_P: pause the pipeline
constexpr int kN = 78;             // GLFW_KEY_N: one more batch while paused
constexpr int kF5 = 294;           // GLFW_KEY_F5: presentation mode
constexpr int kOne = 49;           // GLFW_KEY_1 (to 9: 57)

}  // namespace pinscope::gui::keys
