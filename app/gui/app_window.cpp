#include "app/gui/app_window.h"

#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <cstring>
#include <mutex>
#include <utility>

namespace pinscope::gui {
namespace {

// GLFW reports errors through a callback; the last one explains a failed call.
std::mutex g_error_mutex;
std::string g_last_error;

void on_glfw_error(int code, const char* description) {
    std::lock_guard lock(g_error_mutex);
    g_last_error = std::string(description ? description : "unknown error") + " (GLFW error " +
                   std::to_string(code) + ")";
}

std::string last_glfw_error() {
    std::lock_guard lock(g_error_mutex);
    return g_last_error.empty() ? "no reason given" : g_last_error;
}

std::string gl_string(GLenum name) {
    const auto* text = reinterpret_cast<const char*>(glGetString(name));
    return text ? text : "?";
}

// Tries OpenGL 3.3 core first (what the OpenGL3 backend is written for), then any 3.0 context.
GLFWwindow* create_window(const WindowOptions& options, const char** glsl_version) {
    glfwWindowHint(GLFW_RESIZABLE, options.resizable ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    *glsl_version = "#version 150";
    if (GLFWwindow* w =
            glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr))
        return w;
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_RESIZABLE, options.resizable ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    *glsl_version = "#version 130";
    return glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
}

}  // namespace

namespace {

// Files dropped on the window since the app last asked; GLFW calls back with no context of ours, and
// there is one window.
std::vector<std::string> g_dropped;

void on_drop(GLFWwindow*, int count, const char** paths) {
    for (int i = 0; i < count; ++i) g_dropped.emplace_back(paths[i]);
}

}  // namespace

AppWindow::AppWindow(const WindowOptions& options) {
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) throw WindowError("cannot open a window: " + last_glfw_error());
    const char* glsl_version = nullptr;
    window_ = create_window(options, &glsl_version);
    if (!window_) {
        const std::string why = last_glfw_error();
        glfwTerminate();
        throw WindowError("cannot create an OpenGL 3 window: " + why);
    }
    glfwMakeContextCurrent(window_);
    glfwSwapInterval(1);
    glfwSetDropCallback(window_, on_drop);
    gl_description_ = "OpenGL " + gl_string(GL_VERSION) + " on " + gl_string(GL_RENDERER);
    const std::string renderer = gl_string(GL_RENDERER);
    software_gl_ = renderer.find("llvmpipe") != std::string::npos ||
                   renderer.find("softpipe") != std::string::npos ||
                   renderer.find("Software Rasterizer") != std::string::npos;

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    imgui_ = true;
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout is computed every frame; no imgui.ini left in the user's folder
    glfw_backend_ = ImGui_ImplGlfw_InitForOpenGL(window_, true);
    gl_backend_ = glfw_backend_ && ImGui_ImplOpenGL3_Init(glsl_version);
    if (!gl_backend_) {
        release();
        throw WindowError("cannot start Dear ImGui's OpenGL 3 renderer on " + gl_description_);
    }
}

AppWindow::~AppWindow() {
    release();
}

void AppWindow::release() {
    if (gl_backend_) ImGui_ImplOpenGL3_Shutdown();
    if (glfw_backend_) ImGui_ImplGlfw_Shutdown();
    if (imgui_) ImGui::DestroyContext();
    gl_backend_ = glfw_backend_ = imgui_ = false;
    if (window_) {
        glfwDestroyWindow(window_);
        window_ = nullptr;
        glfwTerminate();
    }
}

bool AppWindow::should_close() const {
    return glfwWindowShouldClose(window_);
}

void AppWindow::poll_events() {
    glfwPollEvents();
}

void AppWindow::wait_events(double seconds) {
    glfwWaitEventsTimeout(seconds);
}

void AppWindow::set_fullscreen(bool on) {
    if (on == fullscreen_) return;
    GLFWmonitor* monitor = glfwGetPrimaryMonitor();
    if (!monitor) return;  // no monitor to fill: stay a window
    if (on) {
        glfwGetWindowPos(window_, &windowed_[0], &windowed_[1]);
        glfwGetWindowSize(window_, &windowed_[2], &windowed_[3]);
        const GLFWvidmode* mode = glfwGetVideoMode(monitor);
        glfwSetWindowMonitor(window_, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    } else {
        glfwSetWindowMonitor(window_, nullptr, windowed_[0], windowed_[1], windowed_[2], windowed_[3], 0);
    }
    fullscreen_ = on;
}

std::vector<std::string> AppWindow::take_dropped_files() {
    return std::exchange(g_dropped, {});
}

void AppWindow::new_frame(std::optional<ImVec2> mouse, bool press) {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    if (mouse) ImGui::GetIO().MousePos = *mouse;
    if (press) ImGui::GetIO().MouseDown[ImGuiMouseButton_Left] = true;  // released by the next frame
    ImGui::NewFrame();
}

void AppWindow::draw(Rgb clear) {
    int width = 0, height = 0;
    glfwGetFramebufferSize(window_, &width, &height);
    glViewport(0, 0, width, height);
    glClearColor(clear.r / 255.f, clear.g / 255.f, clear.b / 255.f, 1.f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void AppWindow::present() {
    glfwSwapBuffers(window_);
}

PixelImage AppWindow::read_back_buffer() const {
    PixelImage image;
    glfwGetFramebufferSize(window_, &image.width, &image.height);
    const size_t row = static_cast<size_t>(image.width) * 4;
    std::vector<uint8_t> bottom_up(row * static_cast<size_t>(image.height));
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, image.width, image.height, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data());
    image.rgba.resize(bottom_up.size());
    for (int y = 0; y < image.height; ++y)  // OpenGL's rows start at the bottom; PNG's at the top
        std::memcpy(image.rgba.data() + static_cast<size_t>(y) * row,
                    bottom_up.data() + static_cast<size_t>(image.height - 1 - y) * row, row);
    return image;
}

void AppWindow::reload_font_texture() {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
}

}  // namespace pinscope::gui
