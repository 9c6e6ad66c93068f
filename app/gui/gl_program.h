#pragma once
// An OpenGL shader program, compiled and linked from GLSL text, and the GL objects the span renderer
// keeps, each released with its owner. Needs a current OpenGL 3.3 context; uses the GL 3 entry points
// that libGL exports (GL_GLEXT_PROTOTYPES), so no loader of our own.
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace pinscope::gui {

// A shader that does not compile or a program that does not link: the driver's log, for the status bar.
class GlError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class GlProgram {
  public:
    GlProgram(std::string_view name, std::string_view vertex, std::string_view fragment);  // throws GlError
    ~GlProgram();
    GlProgram(const GlProgram&) = delete;
    GlProgram& operator=(const GlProgram&) = delete;

    GLuint id() const { return program_; }
    // A uniform's location; -1 (ignored by glUniform*) for one the compiler optimised away.
    GLint uniform(const char* name) const { return glGetUniformLocation(program_, name); }

  private:
    GLuint program_ = 0;
};

// One GL object name with the function that deletes it (buffers, vertex arrays, textures, framebuffers).
template <void (*Delete)(GLsizei, const GLuint*)>
class GlName {
  public:
    GlName() = default;
    explicit GlName(GLuint name) : name_(name) {}
    ~GlName() {
        if (name_) Delete(1, &name_);
    }
    GlName(GlName&& other) noexcept : name_(std::exchange(other.name_, 0)) {}
    GlName& operator=(GlName&& other) noexcept {
        std::swap(name_, other.name_);
        return *this;
    }
    GLuint get() const { return name_; }

  private:
    GLuint name_ = 0;
};

inline void delete_buffers(GLsizei n, const GLuint* names) {
    glDeleteBuffers(n, names);
}
inline void delete_vertex_arrays(GLsizei n, const GLuint* names) {
    glDeleteVertexArrays(n, names);
}
inline void delete_textures(GLsizei n, const GLuint* names) {
    glDeleteTextures(n, names);
}
inline void delete_framebuffers(GLsizei n, const GLuint* names) {
    glDeleteFramebuffers(n, names);
}
using GlBuffer = GlName<delete_buffers>;
using GlVertexArray = GlName<delete_vertex_arrays>;
using GlTexture = GlName<delete_textures>;
using GlFramebuffer = GlName<delete_framebuffers>;

}  // namespace pinscope::gui
