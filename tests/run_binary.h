#pragma once
// Running the pinscope executable from a test: arguments passed as they are (no shell, so an empty
// argument stays one), standard output and error captured, an optional time limit, and signals sent
// while it runs. For the end-to-end tests of what a user, a script or a scheduler sees; a test that
// defines PINSCOPE_BINARY also gets run_pinscope(), the command line as a shell reads it.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "scratch.h"

namespace pinscope::testing {

inline std::string slurp(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

inline size_t line_count(const std::string& text) {
    return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

struct BinaryResult {
    int exit_code = -1;      // the exit status, or 128 + the signal that ended it
    bool signalled = false;  // ended by a signal rather than by exiting
    bool timed_out = false;  // killed at the time limit
    std::string out, err;
    double seconds = 0;  // wall time, start to end
};

// What to do while the program runs: called every 10 ms with its pid and the seconds since it started,
// until it ends (e.g. send SIGTERM after a second).
using WhileRunning = std::function<void(pid_t pid, double seconds)>;

inline BinaryResult run_binary(const std::string& binary, const std::vector<std::string>& args,
                               double time_limit_s = 120, const WhileRunning& while_running = {},
                               const std::string& stdin_file = "/dev/null") {
    static int runs = 0;
    const std::string stem = "run_" + std::to_string(runs++);
    const std::filesystem::path out = scratch_path(stem + ".out"), err = scratch_path(stem + ".err");
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int in_fd = ::open(stdin_file.c_str(), O_RDONLY);
        const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in_fd < 0 || out_fd < 0 || err_fd < 0) ::_exit(126);
        ::dup2(in_fd, 0), ::dup2(out_fd, 1), ::dup2(err_fd, 2);
        std::vector<char*> argv{const_cast<char*>(binary.c_str())};
        for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(binary.c_str(), argv.data());
        ::_exit(127);
    }
    BinaryResult r;
    int status = 0;
    for (;;) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (seconds > time_limit_s && !r.timed_out) {
            r.timed_out = true;
            ::kill(pid, SIGKILL);
        }
        if (while_running) while_running(pid, seconds);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.signalled = WIFSIGNALED(status);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out);
    r.err = slurp(err);
    std::filesystem::remove(out);
    std::filesystem::remove(err);
    return r;
}

#ifdef PINSCOPE_BINARY
// pinscope with `args` as a shell word list, as README gives commands and a user types them, with no
// display (so `pinscope FILE` prints a capture's metrics rather than opening a window).
inline BinaryResult run_pinscope(const std::string& args, double time_limit_s = 300) {
    return run_binary(
        "/bin/sh",
        {"-c", "exec env -u DISPLAY -u WAYLAND_DISPLAY " + std::string(PINSCOPE_BINARY) + " " + args},
        time_limit_s);
}
#endif

}  // namespace pinscope::testing
