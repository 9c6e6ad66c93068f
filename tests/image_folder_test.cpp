// Real images on the workers (dataset=folder:PATH): decoding JPEG and PNG files a stranger gave, with a
// pixel cap; torchvision's RandomResizedCrop, flip and ToTensor; the folder's listing; and a session that
// reads a folder of JPEGs made here, decoding on its workers and skipping the files it cannot use.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <thread>

#include <zlib.h>

#include "core/images/image_decode.h"
#include "core/images/resized_crop.h"
#include "core/pipeline/image_folder_dataset.h"
#include "core/pipeline/session.h"
#include "tests/image_files.h"
#include "tests/run_binary.h"
#include "tests/scratch.h"
#include "tests/sim_configs.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

std::string error_of(const std::vector<uint8_t>& file, int64_t max_pixels = kMaxImagePixels) {
    try {
        decode_image(file, max_pixels);
    } catch (const ImageError& e) {
        return e.what();
    }
    return "";
}

// A PNG that says it is `width` x `height` but holds 8x8 pixels: its header is all a bomb needs.
std::vector<uint8_t> png_claiming(uint32_t width, uint32_t height) {
    std::vector<uint8_t> png = make_png(8, 8, 1);
    // IHDR's width and height are bytes 16..23, big-endian; its CRC (over bytes 12..28) is made anew.
    const auto put32 = [&](size_t at, uint32_t v) {
        for (int i = 0; i < 4; ++i) png[at + i] = static_cast<uint8_t>(v >> (24 - 8 * i));
    };
    put32(16, width);
    put32(20, height);
    put32(29, static_cast<uint32_t>(crc32(0, png.data() + 12, 17)));
    return png;
}

// A JPEG whose frame header (SOF0) says `width` x `height`.
std::vector<uint8_t> jpeg_claiming(uint16_t width, uint16_t height) {
    std::vector<uint8_t> jpeg = make_jpeg(16, 16, 1);
    for (size_t i = 2; i + 9 < jpeg.size(); ++i)
        if (jpeg[i] == 0xFF && jpeg[i + 1] == 0xC0) {
            jpeg[i + 5] = static_cast<uint8_t>(height >> 8), jpeg[i + 6] = static_cast<uint8_t>(height);
            jpeg[i + 7] = static_cast<uint8_t>(width >> 8), jpeg[i + 8] = static_cast<uint8_t>(width);
            return jpeg;
        }
    throw std::runtime_error("no SOF0 marker");
}

}  // namespace

TEST_CASE("JPEGs (RGB, grey, CMYK) and PNGs (RGB, grey) decode to 8-bit RGB of their size") {
    for (int channels : {3, 1, 4}) {
        CAPTURE(channels);
        const RgbImage image = decode_image(make_jpeg(64, 48, 7, channels));
        CHECK(image.width == 64);
        CHECK(image.height == 48);
        CHECK(image.pixels.size() == 64u * 48 * 3);
    }
    for (int channels : {3, 1}) {
        CAPTURE(channels);
        const std::vector<uint8_t> original = photo_like_pixels(40, 30, 9, channels);
        const RgbImage image = decode_image(make_png(40, 30, 9, channels));
        REQUIRE(image.pixels.size() == 40u * 30 * 3);
        // PNG is lossless: every channel of every pixel comes back exactly (grey as R = G = B).
        bool same = true;
        for (size_t p = 0; p < 40u * 30; ++p)
            for (int c = 0; c < 3; ++c)
                same = same && image.pixels[p * 3 + c] == original[p * channels + c % channels];
        CHECK(same);
    }
}

TEST_CASE(
    "damaged, foreign and oversized image files are refused with one line, before any large allocation") {
    const std::vector<uint8_t> jpeg = make_jpeg(64, 48, 3);
    const std::vector<uint8_t> png = make_png(64, 48, 3);
    CHECK(error_of({}) == "is empty");
    CHECK(error_of({'G', 'I', 'F', '8', '9', 'a'}).find("neither a JPEG nor a PNG") != std::string::npos);
    for (size_t cut : {4ul, 20ul, jpeg.size() / 2, jpeg.size() - 2}) {
        CAPTURE(cut);
        CHECK(error_of(std::vector<uint8_t>(jpeg.begin(), jpeg.begin() + static_cast<long>(cut)))
                  .find("not a readable JPEG") != std::string::npos);
    }
    for (size_t cut : {8ul, 30ul, png.size() / 2, png.size() - 4}) {
        CAPTURE(cut);
        CHECK(error_of(std::vector<uint8_t>(png.begin(), png.begin() + static_cast<long>(cut)))
                  .find("not a readable PNG") != std::string::npos);
    }
    // Decompression bombs: small files claiming huge pictures.
    CHECK(error_of(png_claiming(100000, 100000)).find("megapixels allowed") != std::string::npos);
    CHECK(error_of(jpeg_claiming(65000, 65000)).find("megapixels allowed") != std::string::npos);
    // The cap is the caller's: a 64x48 picture is too big for a cap of 1000 pixels.
    CHECK(error_of(jpeg, 1000).find("megapixels allowed") != std::string::npos);
    CHECK(error_of(jpeg).empty());
}

TEST_CASE(
    "RandomResizedCrop is seeded, inside the picture, within its scale and ratio, and its flip mirrors") {
    std::set<std::pair<int, int>> origins;
    int flips = 0;
    for (uint64_t seed = 0; seed < 500; ++seed) {
        const CropBox box = random_resized_crop(500, 375, seed);
        CHECK(box.left >= 0);
        CHECK(box.top >= 0);
        CHECK(box.left + box.width <= 500);
        CHECK(box.top + box.height <= 375);
        const double area = static_cast<double>(box.width) * box.height / (500.0 * 375.0);
        CHECK(area >= 0.07);
        const CropBox again = random_resized_crop(500, 375, seed);
        CHECK((again.left == box.left && again.top == box.top && again.width == box.width &&
               again.flip == box.flip));
        origins.insert({box.left, box.top});
        flips += box.flip;
    }
    CHECK(origins.size() > 400);  // the crops differ from sample to sample
    CHECK(flips > 200);
    CHECK(flips < 300);  // p = 0.5

    // A picture dark on the left and bright on the right: the flipped crop is bright on the left.
    RgbImage image{4, 2, {}};
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 4; ++x)
            for (int c = 0; c < 3; ++c) image.pixels.push_back(static_cast<uint8_t>(x * 85));
    std::vector<float> out(3 * 2 * 4);
    crop_to_tensor(image, CropBox{0, 0, 2, 4, false}, 3, 2, 4, out.data());
    CHECK(out[0] == doctest::Approx(0.0));
    CHECK(out[3] == doctest::Approx(1.0));
    CHECK(out[8 + 3] == doctest::Approx(1.0));  // the second channel's plane
    crop_to_tensor(image, CropBox{0, 0, 2, 4, true}, 3, 2, 4, out.data());
    CHECK(out[0] == doctest::Approx(1.0));
    CHECK(out[3] == doctest::Approx(0.0));
    for (float v : out) CHECK((v >= 0 && v <= 1));
}

TEST_CASE(
    "a folder lists its images directly and in class subfolders, and a missing or empty one is refused") {
    const ScratchFolder scratch;
    const std::filesystem::path root = scratch.path() / "classes";
    write_jpeg_folder(root / "cat", 3, 32, 24);
    write_jpeg_folder(root / "dog", 2, 32, 24);
    write_bytes(root / "top.PNG", make_png(16, 16, 2));
    write_bytes(root / "notes.txt", {'h', 'i'});
    const auto listing = list_image_folder(root.string());
    CHECK(listing->files.size() == 6);
    CHECK(std::is_sorted(listing->files.begin(), listing->files.end()));

    std::filesystem::create_directories(scratch.path() / "empty");
    CHECK_THROWS_WITH_AS(list_image_folder((scratch.path() / "empty").string()),
                         doctest::Contains("holds no .jpg, .jpeg or .png files"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(list_image_folder((scratch.path() / "nowhere").string()),
                         doctest::Contains("no such folder"), std::invalid_argument);
    PipelineConfig config = folder_run((scratch.path() / "nowhere").string(), 2, 8, 1);
    CHECK_THROWS_WITH_AS(Session{config}, doctest::Contains("no such folder"), std::invalid_argument);
}

TEST_CASE("a session on a folder decodes on its workers, and skips and counts the files it cannot use") {
    const ScratchFolder scratch;
    const std::filesystem::path folder = scratch.path() / "images";
    write_jpeg_folder(folder, 40, 500, 375);
    write_bytes(folder / "img00003.jpg", {0xFF, 0xD8, 0xFF, 0xE0, 0x00});  // cut short
    write_bytes(folder / "img00007.jpg", {'n', 'o', 't', ' ', 'a', 'n', ' ', 'i', 'm', 'a', 'g', 'e'});
    PipelineConfig config = folder_run(folder.string(), 2, 8, 0);
    config.batches = 12;  // 96 samples: every file read at least twice
    Session session(config);
    session.start();
    REQUIRE(session.wait(120 * kNsPerS));
    const SessionStatus status = session.status();
    CHECK(status.state == SessionState::finished);
    // Every sample of the 12 batches and of those prefetched beyond them (a stop cuts the last short).
    CHECK(status.dataset.decoded >= 96);
    CHECK(status.dataset.skipped >= 4);  // the two bad files, each met at least twice
    CHECK(status.dataset.first_skip.find("img0000") != std::string::npos);
    CHECK(status.dataset.decode_p50_us > 0);
    CHECK(status.dataset.decode_p99_us >= status.dataset.decode_p50_us);

    // The decoding is the workers' fetch: their lanes hold every fetch span, the train loop's none.
    TraceStore store;
    session.trace().collect(store);
    // Each names the file its batch starts with ("img00016.jpg +7"), as the timeline and the trace show it.
    int64_t worker_fetches = 0, main_fetches = 0, named = 0;
    for (const LaneInfo& lane : store.lanes())
        for (const Span& s : store.spans(lane.id))
            if (s.kind == SpanKind::fetch) {
                (lane.role == LaneRole::worker ? worker_fetches : main_fetches)++;
                const std::string_view name = store.name(s.name);
                named += name.starts_with("img000") && name.ends_with(".jpg +7");
            }
    CHECK(named == worker_fetches);
    CHECK(worker_fetches >= 12);
    CHECK(status.dataset.decoded <= worker_fetches * config.batch_size);
    CHECK(main_fetches == 0);
}

TEST_CASE("a folder of unreadable files fails the run with PyTorch's words, never a crash") {
    const ScratchFolder scratch;
    const std::filesystem::path folder = scratch.path() / "broken";
    std::filesystem::create_directories(folder);
    for (int i = 0; i < 3; ++i)
        write_bytes(folder / ("bad" + std::to_string(i) + ".png"), {0x89, 'P', 'N', 'G'});
    PipelineConfig config = folder_run(folder.string(), 1, 8, 0);
    config.batches = 2;
    Session session(config);
    session.start();
    REQUIRE(session.wait(60 * kNsPerS));
    const SessionStatus status = session.status();
    CHECK(status.state == SessionState::failed);
    CHECK(status.error.find("Caught RuntimeError in DataLoader worker process 0") != std::string::npos);
    CHECK(status.error.find("none of 3 files") != std::string::npos);
}

TEST_CASE("dataset and sample_shape are checked as every knob is") {
    PipelineConfig config = on_sim();
    config.dataset = "imagenet";
    CHECK_THROWS_WITH_AS(Session{config},
                         doctest::Contains("dataset should be synthetic, sample-jpegs or folder:PATH"),
                         std::invalid_argument);
    config.dataset = "folder:/tmp";
    config.sample_shape = *parse_sample_shape("4x32x32");
    CHECK_THROWS_WITH_AS(Session{config}, doctest::Contains("1 or 3 channels"), std::invalid_argument);
    const BinaryResult r = run_pinscope("run --device sim --dataset folder:/no/such/folder --seconds 1");
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find("no such folder") != std::string::npos);
}

TEST_CASE("threads that need the sample JPEGs at once get one whole folder, made once") {
    // The app measures a lesson's runs on several threads; each that found no folder used to make it
    // under the one process-wide name and remove the others' half-written copy.
    const std::filesystem::path cache = scratch_path("sample-cache");
    std::filesystem::remove_all(cache);
    std::filesystem::create_directories(cache);
    const char* before = std::getenv("XDG_CACHE_HOME");
    const std::string restore = before ? before : "";
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    std::vector<std::string> folders(3), errors(3);
    std::vector<std::thread> makers;
    for (size_t i = 0; i < folders.size(); ++i)
        makers.emplace_back([&, i] {
            try {
                folders[i] = ensure_sample_jpegs().string();
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
        });
    for (std::thread& t : makers) t.join();
    if (before)
        ::setenv("XDG_CACHE_HOME", restore.c_str(), 1);
    else
        ::unsetenv("XDG_CACHE_HOME");
    for (size_t i = 0; i < folders.size(); ++i) {
        CAPTURE(errors[i]);
        CHECK(errors[i].empty());
        CHECK(folders[i] == folders[0]);
    }
    size_t jpegs = 0, others = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(cache / "pinscope"))
        if (entry.is_regular_file()) (entry.path().extension() == ".jpg" ? jpegs : others) += 1;
    CHECK(jpegs == static_cast<size_t>(kSampleJpegCount));  // one folder's worth: nothing half-made left
    CHECK(others == 0);
}
