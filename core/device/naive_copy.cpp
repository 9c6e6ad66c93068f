#include "core/device/naive_copy.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/device/device.h"

extern char** environ;

namespace pinscope {
namespace {

std::string& program_path() {
    static std::string path;
    return path;
}

// The child's stdout and stderr, whole, and how it ended.
struct ChildOutput {
    std::string out, err;
    int status = 0;
};

// Reads both pipes until the child closes them; the child writes little (a few hundred bytes).
ChildOutput run_child(const std::vector<std::string>& args) {
    int out_pipe[2], err_pipe[2];
    if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0)
        throw DeviceError(fmt::format("cannot start a fresh process: {}", std::strerror(errno)));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
    posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, args[0].c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (spawned != 0) {
        close(out_pipe[0]);
        close(err_pipe[0]);
        throw DeviceError(fmt::format("cannot start {}: {}", args[0], std::strerror(spawned)));
    }
    ChildOutput output;
    auto drain = [](int fd, std::string& into) {
        char buffer[4096];
        for (;;) {
            const ssize_t n = read(fd, buffer, sizeof(buffer));
            if (n > 0) {
                into.append(buffer, static_cast<size_t>(n));
                continue;
            }
            if (n < 0 && errno == EINTR) continue;
            break;
        }
        close(fd);
    };
    drain(out_pipe[0], output.out);  // the child writes its stderr only when it fails, after its stdout
    drain(err_pipe[0], output.err);
    while (waitpid(pid, &output.status, 0) < 0 && errno == EINTR) {
    }
    return output;
}

SpanKind kind_named(std::string_view name) {
    for (SpanKind kind : {SpanKind::fetch, SpanKind::stage, SpanKind::sync, SpanKind::h2d, SpanKind::startup,
                          SpanKind::stopwatch})
        if (span_kind_name(kind) == name) return kind;
    throw DeviceError(fmt::format("the naive benchmark's process reported a step of kind \"{}\"", name));
}

}  // namespace

void set_fresh_process_program(std::string path) {
    program_path() = std::move(path);
}

const std::string& fresh_process_program() {
    return program_path();
}

nlohmann::json naive_copy_request_json(const NaiveCopyRequest& r) {
    return {{"bytes", r.bytes}, {"pinned", r.pinned}, {"non_blocking", r.non_blocking}, {"gpu", r.gpu}};
}

NaiveCopyRequest naive_copy_request(const std::string& text) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    NaiveCopyRequest r;
    if (!j.is_object() || !j.contains("bytes") || !j["bytes"].is_number_unsigned() || !j.contains("gpu") ||
        !j["gpu"].is_number_unsigned() || !j.value("pinned", nlohmann::json()).is_boolean() ||
        !j.value("non_blocking", nlohmann::json()).is_boolean())
        throw std::invalid_argument(
            "a request of {\"bytes\", \"pinned\", \"non_blocking\", \"gpu\"} is expected");
    r.bytes = j["bytes"].get<size_t>();
    r.gpu = j["gpu"].get<int>();
    r.pinned = j["pinned"].get<bool>();
    r.non_blocking = j["non_blocking"].get<bool>();
    if (r.bytes == 0 || r.bytes > (size_t{1} << 36) || r.gpu > 1024)
        throw std::invalid_argument("bytes should be 1 to 64 GiB and gpu a device's ordinal");
    return r;
}

std::vector<NaiveCopyStep> naive_copy_steps(const nlohmann::json& json) {
    if (!json.is_object() || !json.contains("steps") || !json["steps"].is_array())
        throw DeviceError("the naive benchmark's process reported no steps");
    std::vector<NaiveCopyStep> steps;
    for (const nlohmann::json& s : json["steps"]) {
        if (!s.is_object() || !s.contains("what") || !s["what"].is_string() || !s.contains("kind") ||
            !s["kind"].is_string() || !s.contains("start") || !s["start"].is_number_integer() ||
            !s.contains("end") || !s["end"].is_number_integer())
            throw DeviceError("the naive benchmark's process reported a malformed step");
        NaiveCopyStep step;
        step.what = s["what"].get<std::string>();
        step.kind = kind_named(s["kind"].get<std::string>());
        step.start = s["start"].get<TimeNs>();
        step.end = s["end"].get<TimeNs>();
        if (step.start <= 0 || step.end < step.start)
            throw DeviceError(
                fmt::format("the naive benchmark's step \"{}\" ends before it starts", step.what));
        steps.push_back(std::move(step));
    }
    return steps;
}

std::vector<NaiveCopyStep> run_naive_copy_in_fresh_process(const NaiveCopyRequest& request) {
    if (program_path().empty())
        throw DeviceError(
            "naive_benchmark on a real GPU runs in a fresh pinscope process, and this program is not "
            "pinscope; run it from pinscope's command line or its app.");
    const ChildOutput child =
        run_child({program_path(), "naive-copy-child", naive_copy_request_json(request).dump()});
    if (!WIFEXITED(child.status) || WEXITSTATUS(child.status) != 0) {
        std::string why = child.err;
        while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
        throw DeviceError(fmt::format("the naive benchmark's fresh process failed: {}",
                                      why.empty() ? "it ended with no message" : why));
    }
    nlohmann::json json = nlohmann::json::parse(child.out, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) throw DeviceError("the naive benchmark's process printed no JSON");
    return naive_copy_steps(json);
}

#if !PINSCOPE_HAVE_CUDA
nlohmann::json run_naive_copy_here(const NaiveCopyRequest&) {
    throw DeviceError("this build has no CUDA support (the CUDA toolkit was not found when it was built).");
}
#endif

}  // namespace pinscope
