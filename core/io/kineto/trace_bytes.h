#pragma once
// The text of a trace file, read a piece at a time: plain JSON as it is, gzip (.json.gz, or any file that
// starts with gzip's magic) inflated on the fly, never unpacked to disk. A file of several gzip members
// (what `cat a.gz b.gz` makes) reads as their concatenation.
//
// A gzip stream that is cut short or corrupt does not throw: read() returns what came before it, then 0,
// and problem() says what was wrong, so an importer can keep the events that were whole.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace pinscope {

class TraceBytes {
  public:
    // Throws CaptureError naming the file when it cannot be opened.
    explicit TraceBytes(const std::filesystem::path& path);
    ~TraceBytes();
    TraceBytes(const TraceBytes&) = delete;
    TraceBytes& operator=(const TraceBytes&) = delete;

    // Up to `capacity` bytes of text into `out`; 0 once the text has ended (or broke off: see problem()).
    size_t read(char* out, size_t capacity);

    bool gzipped() const { return gzipped_; }
    uint64_t file_bytes() const { return file_bytes_; }
    // How far through the file reading is, in [0, 1] (of its bytes on disk, compressed or not).
    double share_read() const;
    // "" while the text is sound; else why it ended early ("the gzip stream is cut short").
    const std::string& problem() const { return problem_; }

  private:
    size_t read_raw(char* out, size_t capacity);
    size_t inflate_into(char* out, size_t capacity);

    struct FileCloser {
        void operator()(FILE* f) const { std::fclose(f); }
    };
    std::unique_ptr<FILE, FileCloser> file_;
    uint64_t file_bytes_ = 0, consumed_ = 0;
    bool gzipped_ = false, ended_ = false;
    std::string problem_;
    struct Inflater;
    std::unique_ptr<Inflater> inflater_;
};

}  // namespace pinscope
