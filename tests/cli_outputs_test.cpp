// Outputs that are not plain files: a trace streamed to standard output, a capture to a FIFO that
// another program reads, a device left a device, a symbolic link followed and its target replaced
// with its permissions, and a reader who leaves early said so in one line.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/io/capture.h"
#include "run_binary.h"
#include "scratch.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

namespace fs = std::filesystem;

// Reads a FIFO to its end, or `limit` bytes, on a thread of its own.
class FifoReader {
  public:
    FifoReader(const fs::path& fifo, size_t limit = SIZE_MAX)
        : thread_([this, fifo, limit] {
              const int fd = ::open(fifo.c_str(), O_RDONLY);
              if (fd < 0) return;
              char buffer[1 << 16];
              for (ssize_t n; bytes_.size() < limit && (n = ::read(fd, buffer, sizeof buffer)) > 0;)
                  bytes_.append(buffer, static_cast<size_t>(
                                            std::min<size_t>(static_cast<size_t>(n), limit - bytes_.size())));
              ::close(fd);
          }) {}
    const std::string& take() {
        thread_.join();
        return bytes_;
    }

  private:
    std::string bytes_;
    std::thread thread_;
};

}  // namespace

TEST_CASE("--trace /dev/stdout streams valid JSON to standard output, the summary to stderr") {
    const BinaryResult r = run_binary(PINSCOPE_BINARY, {"run", "--device", "sim", "--batches", "6",
                                                        "--seconds", "0", "--trace", "/dev/stdout"});
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    const nlohmann::json trace = nlohmann::json::parse(r.out);
    CHECK(trace["traceEvents"].size() > 10);
    CHECK(r.err.find("samples/s") != std::string::npos);
}

TEST_CASE("--trace refuses a .pinscope name, which promises a capture, before running anything") {
    // Chrome Trace JSON under a capture's name opened in `pinscope stats` as an empty profiler trace.
    const fs::path file = scratch_path("run.pinscope");
    const BinaryResult r = run_binary(PINSCOPE_BINARY, {"run", "--device", "sim", "--batches", "4",
                                                        "--seconds", "0", "--trace", file.string()});
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);  // bad input
    CHECK(r.err.find("--capture") != std::string::npos);
    CHECK_FALSE(fs::exists(file));
}

TEST_CASE("a link to /proc/self/fd/1 is followed to standard output, and stays a link") {
    const fs::path link = scratch_path("to-stdout.json");
    fs::create_symlink("/proc/self/fd/1", link);
    const BinaryResult r = run_binary(PINSCOPE_BINARY, {"run", "--device", "sim", "--batches", "4",
                                                        "--seconds", "0", "--trace", link.string()});
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    CHECK(nlohmann::json::parse(r.out)["traceEvents"].size() > 10);
    CHECK(fs::is_symlink(link));
}

TEST_CASE("--capture onto a FIFO is read whole by a reader on the other end") {
    const fs::path fifo = scratch_path("capture.fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    FifoReader reader(fifo);
    const BinaryResult r = run_binary(PINSCOPE_BINARY, {"run", "--device", "sim", "--batches", "6",
                                                        "--seconds", "0", "--capture", fifo.string()});
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    const std::string& bytes = reader.take();
    const Capture capture =
        load_capture_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "the FIFO's bytes");
    CHECK(capture.store.span_count() > 20);
    CHECK(r.err.find("streamed") != std::string::npos);
    struct stat st;
    REQUIRE(::stat(fifo.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));  // still a FIFO, not a file renamed over it
}

TEST_CASE("a FIFO whose reader leaves early is one line of error, not a death by SIGPIPE") {
    const fs::path fifo = scratch_path("early.fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    FifoReader reader(fifo, 100);
    // Far more than a pipe's 64 KiB buffer holds, so the writer is still writing when the reader leaves.
    const BinaryResult r =
        run_binary(PINSCOPE_BINARY,
                   {"run", "--device", "sim", "--num-workers", "0", "--sample-shape", "1", "--kernel-us", "0",
                    "--d2h-bytes", "0", "--seconds", "0.5", "--trace", fifo.string()});
    CAPTURE(r.err);
    CHECK_FALSE(r.signalled);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("its reader closed it before the end") != std::string::npos);
    CHECK(reader.take().size() == 100);
}

TEST_CASE("a character device written to stays a device: /dev/null, and as root a node of our own") {
    std::vector<fs::path> devices = {"/dev/null"};
    const fs::path node = scratch_path("null-node");
    if (::geteuid() == 0 && ::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0)
        devices.push_back(node);
    for (const fs::path& device : devices) {
        CAPTURE(device);
        const BinaryResult r =
            run_binary(PINSCOPE_BINARY, {"run", "--device", "sim", "--batches", "3", "--seconds", "0",
                                         "--trace", device.string(), "--capture", device.string()});
        CAPTURE(r.err);
        CHECK(r.exit_code == (device == "/dev/null" ? 0 : 2));  // /dev/null may take both; another node not
        struct stat st;
        REQUIRE(::stat(device.c_str(), &st) == 0);
        CHECK(S_ISCHR(st.st_mode));
    }
    if (devices.size() > 1) {
        const BinaryResult r = run_binary(PINSCOPE_BINARY, {"run", "--device", "sim", "--batches", "3",
                                                            "--seconds", "0", "--capture", node.string()});
        CHECK(r.exit_code == 0);
        struct stat st;
        REQUIRE(::stat(node.c_str(), &st) == 0);
        CHECK(S_ISCHR(st.st_mode));
    }
}

TEST_CASE(
    "a symbolic link is followed: its target is replaced, keeping its permissions, and it stays a link") {
    const fs::path folder = scratch_path("links");
    fs::create_directories(folder / "real");
    const fs::path target = folder / "real" / "trace.json", link = folder / "trace.json";
    std::ofstream(target) << "old\n";
    fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    fs::create_symlink("real/trace.json", link);
    const BinaryResult r = run_binary(PINSCOPE_BINARY, {"run", "--device", "sim", "--batches", "3",
                                                        "--seconds", "0", "--trace", link.string()});
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    CHECK(fs::is_symlink(link));
    CHECK(fs::status(target).permissions() ==
          (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
    CHECK(nlohmann::json::parse(slurp(target))["traceEvents"].size() > 0);
    for (const auto& entry : fs::recursive_directory_iterator(folder))
        CHECK(entry.path().filename().string().find(".tmp") == std::string::npos);
}
