#include "core/io/kineto/kineto_event.h"

#include <simdjson.h>

#include <string>

namespace pinscope {

namespace dom = simdjson::dom;

// The DOM parser, not on-demand: its parsing kernels are picked at run time for the CPU (AVX2 or SSE4.2
// where there is one), while on-demand code is compiled for the build's baseline, which for Debian's
// x86-64 is the portable fallback kernel, several times slower.
namespace {

enum class Parsed { ok, malformed, missing };

bool read_number(dom::element value, double& out) {
    return value.get_double().get(out) == simdjson::SUCCESS;
}

// An integer field that some versions write as a float or a string of digits.
bool read_integer(dom::element value, int64_t& out) {
    if (value.is_int64()) return value.get_int64().get(out) == simdjson::SUCCESS;
    if (value.is_uint64()) return false;  // past int64: no id of a real trace
    if (value.is_double()) {
        const double d = value.get_double().value_unsafe();
        if (!(d > -9.2e18 && d < 9.2e18)) return false;
        out = static_cast<int64_t>(d);
        return true;
    }
    if (value.is_string()) {
        const std::string_view text = value.get_string().value_unsafe();
        if (text.empty()) return false;
        int64_t v = 0;
        for (char c : text) {
            if (c < '0' || c > '9' || v > (std::numeric_limits<int64_t>::max() - 9) / 10) return false;
            v = v * 10 + (c - '0');
        }
        out = v;
        return true;
    }
    return false;
}

bool read_id(dom::element value, TraceId& out) {
    out.present = true;
    if (value.is_string()) return value.get_string().get(out.text) == simdjson::SUCCESS;
    return read_integer(value, out.number);
}

bool read_args(dom::object args, KinetoEvent& e) {
    for (dom::key_value_pair field : args) {
        const std::string_view key = field.key;
        const dom::element value = field.value;
        if (key == "bytes") {
            if (!read_number(value, e.bytes)) return false;
        } else if (key == "correlation") {
            if (!read_integer(value, e.correlation)) return false;
        } else if (key == "memory bandwidth (GB/s)") {
            double gbps;
            if (read_number(value, gbps)) e.bandwidth_gbps = gbps;  // "N/A" leaves it absent
        } else if (key == "device") {
            if (!read_integer(value, e.device)) e.device = KinetoEvent::kNoValue;
        } else if (key == "stream") {
            if (!read_integer(value, e.stream)) e.stream = KinetoEvent::kNoValue;
        } else if (key == "name") {
            if (value.get_string().get(e.arg_name)) e.arg_name = {};
        } else if (key == "sort_index") {
            if (!read_integer(value, e.sort_index)) e.sort_index = KinetoEvent::kNoValue;
        }
    }
    return true;
}

Parsed read_event(dom::element element, KinetoEvent& e) {
    dom::object object;
    if (element.get_object().get(object)) return Parsed::malformed;
    for (dom::key_value_pair field : object) {
        const std::string_view key = field.key;
        const dom::element value = field.value;
        if (key == "ph") {
            std::string_view ph;
            if (value.get_string().get(ph) || ph.empty()) return Parsed::malformed;
            e.ph = ph[0];
        } else if (key == "cat") {
            if (value.get_string().get(e.cat)) return Parsed::malformed;
        } else if (key == "name") {
            if (value.get_string().get(e.name)) return Parsed::malformed;
        } else if (key == "pid") {
            if (!read_id(value, e.pid)) return Parsed::malformed;
        } else if (key == "tid") {
            if (!read_id(value, e.tid)) return Parsed::malformed;
        } else if (key == "ts") {
            if (!read_number(value, e.ts)) return Parsed::malformed;
        } else if (key == "dur") {
            if (!read_number(value, e.dur)) return Parsed::malformed;
        } else if (key == "id") {
            // Flow ids are numbers; some writers quote them.
            if (!read_integer(value, e.id)) e.id = KinetoEvent::kNoValue;
        } else if (key == "bp") {
            if (value.get_string().get(e.bp)) e.bp = {};
        } else if (key == "args") {
            dom::object args;
            if (value.get_object().get(args) == simdjson::SUCCESS && !read_args(args, e))
                return Parsed::malformed;
        }
    }
    if (e.ph == 0) return Parsed::missing;
    return Parsed::ok;
}

template <class Deliver>
void hand_over(dom::element element, EventProblems& problems, Deliver&& deliver) {
    KinetoEvent e;
    switch (read_event(element, e)) {
        case Parsed::ok:
            return deliver(e);
        case Parsed::malformed:
            ++problems.malformed;
            return;
        case Parsed::missing:
            ++problems.missing_field;
            return;
    }
}

}  // namespace

struct KinetoEventParser::Impl {
    dom::parser parser;
};

KinetoEventParser::KinetoEventParser() : impl_(std::make_unique<Impl>()) {}
KinetoEventParser::~KinetoEventParser() = default;

void KinetoEventParser::parse_with(const EventChunk& chunk, SinkFn fn, void* sink) {
    // The whole chunk as one array: the fast way, and the one almost every chunk takes. The chunk's text
    // is followed by simdjson's padding (the splitter leaves it), so it is parsed where it lies.
    const auto deliver = [&](const KinetoEvent& e) { fn(sink, e); };
    dom::element root;
    dom::array events;
    if (impl_->parser.parse(chunk.json_size == 0 ? nullptr : chunk.text.data(), chunk.json_size, false)
                .get(root) == simdjson::SUCCESS &&
        root.get_array().get(events) == simdjson::SUCCESS) {
        for (dom::element element : events) hand_over(element, problems_, deliver);
        return;
    }
    // Some event is not JSON: each on its own, skipping the ones that do not parse.
    for (size_t i = 0; i < chunk.size(); ++i) {
        const std::string_view text = chunk.json().substr(chunk.offsets[i], chunk.ends[i] - chunk.offsets[i]);
        dom::element element;
        if (impl_->parser.parse(text.data(), text.size(), true).get(element)) {
            ++problems_.malformed;
            continue;
        }
        hand_over(element, problems_, deliver);
    }
}

}  // namespace pinscope
