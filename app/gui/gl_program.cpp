#include "app/gui/gl_program.h"

#include <fmt/format.h>

namespace pinscope::gui {
namespace {

std::string shader_log(GLuint shader) {
    GLint length = 0;
    glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<size_t>(std::max(length, 1)), '\0');
    glGetShaderInfoLog(shader, length, nullptr, log.data());
    return log.c_str();  // up to the terminating zero
}

std::string program_log(GLuint program) {
    GLint length = 0;
    glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<size_t>(std::max(length, 1)), '\0');
    glGetProgramInfoLog(program, length, nullptr, log.data());
    return log.c_str();
}

// The first line of a driver's log is the one that names the problem.
std::string first_line(const std::string& log) {
    const std::string line = log.substr(0, log.find('\n'));
    return line.empty() ? "no log" : line;
}

GLuint compile(GLenum type, std::string_view name, std::string_view source) {
    const GLuint shader = glCreateShader(type);
    if (!shader) throw GlError(fmt::format("{}: glCreateShader failed", name));
    const GLchar* text = source.data();
    const GLint length = static_cast<GLint>(source.size());
    glShaderSource(shader, 1, &text, &length);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok != GL_TRUE) {
        const std::string log = shader_log(shader);
        glDeleteShader(shader);
        throw GlError(fmt::format("{} does not compile: {}", name, first_line(log)));
    }
    return shader;
}

}  // namespace

GlProgram::GlProgram(std::string_view name, std::string_view vertex, std::string_view fragment) {
    const GLuint vs = compile(GL_VERTEX_SHADER, fmt::format("{}.vert", name), vertex);
    GLuint fs = 0;
    try {
        fs = compile(GL_FRAGMENT_SHADER, fmt::format("{}.frag", name), fragment);
    } catch (...) {
        glDeleteShader(vs);
        throw;
    }
    program_ = glCreateProgram();
    glAttachShader(program_, vs);
    glAttachShader(program_, fs);
    glLinkProgram(program_);
    glDeleteShader(vs);  // flagged: freed with the program
    glDeleteShader(fs);
    GLint ok = GL_FALSE;
    glGetProgramiv(program_, GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE) {
        const std::string log = program_log(program_);
        glDeleteProgram(program_);
        throw GlError(fmt::format("{} does not link: {}", name, first_line(log)));
    }
}

GlProgram::~GlProgram() {
    glDeleteProgram(program_);
}

}  // namespace pinscope::gui
