// Fuzzes the lesson reader as `pinscope lesson FILE.json` uses it: bytes are JSON text or a JsonTextError,
// and JSON is a lesson or a std::invalid_argument naming what is wrong. Any other exception (a JSON
// library's own, say) escapes and is a finding. A lesson that reads must be whole: runs whose configs
// validate, a question whose answer indexes its choices, an answer whose placeholders fill in.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/config/validate.h"
#include "core/io/metrics_json.h"
#include "core/lab/lesson.h"
#include "tests/fuzz/fuzz_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace pinscope;
    const std::optional<nlohmann::json> parsed = fuzz_json(data, size);
    if (!parsed) return 0;
    const nlohmann::json& json = *parsed;
    Lesson lesson;
    try {
        lesson = parse_lesson(json, "fuzz.json");
    } catch (const std::invalid_argument&) {
        return 0;
    }
    if (lesson.runs.empty() || lesson.question.answer >= lesson.question.choices.size()) std::abort();
    std::map<std::string, nlohmann::json> metrics;
    for (size_t i = 0; i < lesson.runs.size(); ++i) {
        if (!validate(lesson.run_config(i)).ok()) std::abort();
        metrics[lesson.runs[i].id] = metrics_json(Metrics{});
    }
    try {
        (void)fill_answer(lesson.answer, metrics);  // a metric the runs do not measure is a message
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
