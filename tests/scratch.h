#pragma once
// A folder of this test process's own for the files a test writes. ctest runs every test case as its own
// process, several at once, and two cases that used one fixed name under /tmp read each other's
// half-written files (CI saw "not a pinscope capture" from exactly that). The folder is named by the
// process id and removed when the process ends.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace pinscope::testing {

class ScratchFolder {
  public:
    ScratchFolder()
        : path_(std::filesystem::temp_directory_path() / ("pinscope_test_" + std::to_string(::getpid()))) {
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~ScratchFolder() {
        std::error_code ignored;  // a test that failed halfway may leave read-only files: never throw here
        std::filesystem::remove_all(path_, ignored);
    }
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;

    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

// This process's scratch folder, made on first use.
inline const std::filesystem::path& scratch_folder() {
    static const ScratchFolder folder;
    return folder.path();
}

// A path for `name` inside the scratch folder.
inline std::filesystem::path scratch_path(const std::string& name) {
    return scratch_folder() / name;
}

}  // namespace pinscope::testing
