// The question people most ask of a loader, on real JPEGs: do workers help on this machine? On a 2-core
// machine two workers decode on both cores while the train loop feeds the GPU; with none, the train loop
// decodes every image itself between its GPU calls.
#include <doctest/doctest.h>

#include "core/pipeline/session.h"
#include "tests/image_files.h"
#include "tests/scratch.h"
#include "tests/sim_configs.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

double samples_per_s(const std::filesystem::path& folder, int workers) {
    const PipelineConfig config = folder_run(folder.string(), workers, 16, 3);
    Session session(config);
    session.start();
    REQUIRE(session.wait(60 * kNsPerS));
    const SessionStatus status = session.status();
    REQUIRE(status.state == SessionState::finished);
    CHECK(status.dataset.skipped == 0);
    return static_cast<double>(status.batches * config.batch_size) / ns_to_s(status.elapsed);
}

}  // namespace

TEST_CASE("on real 500x375 JPEGs, 2 workers give at least 1.3x the samples/s of none") {
    const ScratchFolder scratch;
    write_jpeg_folder(scratch.path() / "jpegs", 200, 500, 375);
    const double inline_rate = samples_per_s(scratch.path() / "jpegs", 0);
    const double two_workers = samples_per_s(scratch.path() / "jpegs", 2);
    MESSAGE("num_workers 0: " << inline_rate << " samples/s; 2: " << two_workers << " samples/s");
    CHECK(two_workers >= 1.3 * inline_rate);
}
