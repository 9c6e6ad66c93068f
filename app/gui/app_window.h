#pragma once
// The window: GLFW, an OpenGL 3 context and a Dear ImGui context with its GLFW and OpenGL3 backends,
// made and torn down together. Implements: frames, the back buffer read back as pixels (for
// --screenshot). Lacks: several windows, docking (ImGui 1.86 from Debian has none).
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/gui/model/span_palette.h"

struct GLFWwindow;

namespace pinscope::gui {

// No display, no GLX, no OpenGL 3: the message says which, in words a user can act on.
class WindowError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct WindowOptions {
    int width = 1600;
    int height = 900;
    std::string title = "pinscope";
    bool resizable = true;  // off for screenshots, whose size is asked for
};

struct PixelImage {
    int width = 0, height = 0;
    std::vector<uint8_t> rgba;  // rows top to bottom
};

class AppWindow {
  public:
    explicit AppWindow(const WindowOptions& options);  // throws WindowError
    ~AppWindow();
    AppWindow(const AppWindow&) = delete;
    AppWindow& operator=(const AppWindow&) = delete;

    bool should_close() const;
    void poll_events();
    // Sleeps until an event comes (a key, the pointer moving) or `seconds` pass.
    void wait_events(double seconds);
    // Fills the primary monitor (presentation mode), or goes back to the window it was.
    void set_fullscreen(bool on);
    // Paths of files dropped on the window since the last call.
    std::vector<std::string> take_dropped_files();
    // Starts an ImGui frame (both backends, then ImGui::NewFrame). `mouse`, when given, replaces the
    // pointer's position: screenshots of hovers and tests without a pointer device.
    // `mouse`: the pointer, fixed there; `press`: the left button held down this frame (screenshots of a
    // click).
    void new_frame(std::optional<ImVec2> mouse = std::nullopt, bool press = false);
    // Draws the frame ImGui::Render() produced into the back buffer, over `clear`.
    void draw(Rgb clear);
    void present();
    // The back buffer as drawn (call after draw(), before present()).
    PixelImage read_back_buffer() const;

    // "OpenGL 4.5 (Core Profile) Mesa 22.3.6 on llvmpipe": said once on start.
    const std::string& gl_description() const { return gl_description_; }
    // OpenGL drawn by the CPU (Mesa's llvmpipe or softpipe, as under Xvfb without a GPU).
    bool software_gl() const { return software_gl_; }
    // Font atlas changes must reach the GPU between frames.
    void reload_font_texture();

  private:
    void release();

    GLFWwindow* window_ = nullptr;
    bool imgui_ = false, glfw_backend_ = false, gl_backend_ = false;
    std::string gl_description_;
    bool software_gl_ = false;
    bool fullscreen_ = false;
    int windowed_[4] = {0, 0, 0, 0};  // x, y, width, height before full screen
};

}  // namespace pinscope::gui
