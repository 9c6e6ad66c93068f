#include "core/config/config_json.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

namespace pinscope {
namespace {

using nlohmann::json;

const char* type_name(json::value_t t) {
    switch (t) {
        case json::value_t::null:
            return "null";
        case json::value_t::boolean:
            return "a boolean";
        case json::value_t::string:
            return "a string";
        case json::value_t::array:
            return "an array";
        case json::value_t::object:
            return "an object";
        case json::value_t::discarded:
            return "nothing";
        default:
            return "a number";
    }
}

[[noreturn]] void wrong_type(const std::string& key, const json& value, const char* expected) {
    throw ConfigFileError(fmt::format("config key \"{}\" should be {}, not {} ({}).", key, expected,
                                      type_name(value.type()), value.dump()));
}

// Readers for one key each: they check the JSON type and range that C++ needs; validate() checks the
// values against PyTorch's rules afterwards.
int64_t read_integer(const std::string& key, const json& v) {
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (d == static_cast<double>(static_cast<int64_t>(d))) return static_cast<int64_t>(d);
    }
    wrong_type(key, v, "an integer");
}

int read_int(const std::string& key, const json& v) {
    const int64_t i = read_integer(key, v);
    if (i < INT32_MIN || i > INT32_MAX) wrong_type(key, v, "an integer of 32 bits");
    return static_cast<int>(i);
}

double read_number(const std::string& key, const json& v) {
    if (!v.is_number()) wrong_type(key, v, "a number");
    return v.get<double>();
}

bool read_bool(const std::string& key, const json& v) {
    if (!v.is_boolean()) wrong_type(key, v, "true or false");
    return v.get<bool>();
}

std::string read_string(const std::string& key, const json& v) {
    if (!v.is_string()) wrong_type(key, v, "a string");
    return v.get<std::string>();
}

template <class T, class Parse>
T read_choice(const std::string& key, const json& v, Parse parse, const char* choices) {
    const std::string text = read_string(key, v);
    if (auto parsed = parse(text)) return *parsed;
    throw ConfigFileError(
        fmt::format("config key \"{}\" should be one of {}, not \"{}\".", key, choices, text));
}

SampleShape read_shape(const std::string& key, const json& v) {
    if (v.is_string()) {
        if (auto shape = parse_sample_shape(v.get<std::string>())) return *shape;
    } else if (v.is_array()) {
        SampleShape shape;
        shape.dims.clear();
        for (const json& d : v) shape.dims.push_back(read_integer(key, d));
        return shape;
    }
    wrong_type(key, v, "a shape such as \"3x224x224\" or [3, 224, 224]");
}

}  // namespace

json config_to_json(const PipelineConfig& c) {
    json j;
    j["num_workers"] = c.num_workers;
    j["prefetch_factor"] = c.prefetch_factor ? json(*c.prefetch_factor) : json(nullptr);
    j["pin_memory"] = c.pin_memory;
    j["pin_mode"] = std::string(to_string(c.pin_mode));
    j["non_blocking"] = c.non_blocking;
    j["in_order"] = c.in_order;
    j["batch_size"] = c.batch_size;
    j["sample_shape"] = c.sample_shape.to_string();
    j["decode_us"] = c.decode_us;
    j["io_us"] = c.io_us;
    j["kernel_us"] = c.kernel_us;
    j["d2h_bytes"] = c.d2h_bytes;
    j["fail_at_sample"] = c.fail_at_sample;
    j["streams"] = c.streams;
    j["chunks"] = c.chunks;
    j["issue_order"] = std::string(to_string(c.issue_order));
    j["device"] = std::string(to_string(c.device));
    j["calibration"] = c.calibration;
    j["cupti"] = c.cupti;
    j["pinned_budget_mb"] = c.pinned_budget_mb;
    j["seconds"] = c.seconds;
    j["batches"] = c.batches;
    j["seed"] = c.seed;
    return j;
}

PipelineConfig config_from_json(const json& j, const PipelineConfig& base) {
    if (!j.is_object())
        throw ConfigFileError(fmt::format("a config should be a JSON object, not {}.", type_name(j.type())));
    PipelineConfig c = base;
    for (const auto& [key, v] : j.items()) {
        if (key == "num_workers")
            c.num_workers = read_int(key, v);
        else if (key == "prefetch_factor")
            c.prefetch_factor = v.is_null() ? std::nullopt : std::optional(read_int(key, v));
        else if (key == "pin_memory")
            c.pin_memory = read_bool(key, v);
        else if (key == "pin_mode")
            c.pin_mode = read_choice<PinMode>(key, v, parse_pin_mode, "\"thread\", \"direct\"");
        else if (key == "non_blocking")
            c.non_blocking = read_bool(key, v);
        else if (key == "in_order")
            c.in_order = read_bool(key, v);
        else if (key == "batch_size")
            c.batch_size = read_int(key, v);
        else if (key == "sample_shape")
            c.sample_shape = read_shape(key, v);
        else if (key == "decode_us")
            c.decode_us = read_number(key, v);
        else if (key == "io_us")
            c.io_us = read_number(key, v);
        else if (key == "kernel_us")
            c.kernel_us = read_number(key, v);
        else if (key == "d2h_bytes")
            c.d2h_bytes = read_integer(key, v);
        else if (key == "fail_at_sample")
            c.fail_at_sample = read_integer(key, v);
        else if (key == "streams")
            c.streams = read_int(key, v);
        else if (key == "chunks")
            c.chunks = read_int(key, v);
        else if (key == "issue_order")
            c.issue_order =
                read_choice<IssueOrder>(key, v, parse_issue_order, "\"per-chunk\", \"copies-first\"");
        else if (key == "device")
            c.device = read_choice<DeviceChoice>(key, v, parse_device_choice, "\"auto\", \"sim\", \"cuda\"");
        else if (key == "calibration")
            c.calibration = read_string(key, v);
        else if (key == "cupti")
            c.cupti = read_bool(key, v);
        else if (key == "pinned_budget_mb")
            c.pinned_budget_mb = read_integer(key, v);
        else if (key == "seconds")
            c.seconds = read_number(key, v);
        else if (key == "batches")
            c.batches = read_integer(key, v);
        else if (key == "seed") {
            const int64_t seed = read_integer(key, v);
            if (seed < 0) wrong_type(key, v, "a non-negative integer");
            c.seed = static_cast<uint64_t>(seed);
        } else {
            const json defaults = config_to_json(PipelineConfig{});
            std::string known;
            for (const auto& [k, unused] : defaults.items()) known += (known.empty() ? "" : ", ") + k;
            throw ConfigFileError(fmt::format("unknown config key \"{}\"; known keys are {}.", key, known));
        }
    }
    return c;
}

PipelineConfig load_config(const std::filesystem::path& path, const PipelineConfig& base) {
    std::ifstream in(path);
    if (!in)
        throw ConfigFileError(
            fmt::format("cannot read config file {}: no such file or not readable.", path.string()));
    std::stringstream text;
    text << in.rdbuf();
    json j;
    try {
        j = json::parse(text.str());
    } catch (const json::parse_error& e) {
        // e.byte is 1-based; turn it into a line and column a user can jump to.
        const std::string s = text.str();
        size_t line = 1, column = 1;
        for (size_t i = 0; i + 1 < e.byte && i < s.size(); ++i) {
            if (s[i] == '\n')
                ++line, column = 1;
            else
                ++column;
        }
        throw ConfigFileError(
            fmt::format("config file {} is not valid JSON at line {}, column {}; fix the file or "
                        "write a new one with --save-config.",
                        path.string(), line, column));
    }
    try {
        return config_from_json(j, base);
    } catch (const ConfigFileError& e) {
        throw ConfigFileError(fmt::format("config file {}: {}", path.string(), e.what()));
    }
}

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
    std::filesystem::path tmp = path;
    tmp += fmt::format(".tmp{}", ::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            throw std::runtime_error(
                fmt::format("cannot write {}: check that the folder exists and is writable.", path.string()));
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        out.flush();
        if (!out) {
            out.close();
            std::filesystem::remove(tmp);
            throw std::runtime_error(
                fmt::format("writing {} failed (disk full?); nothing was replaced.", path.string()));
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp);
        throw std::runtime_error(fmt::format("cannot replace {}: {}.", path.string(), ec.message()));
    }
}

void save_config(const std::filesystem::path& path, const PipelineConfig& config) {
    write_file_atomically(path, config_to_json(config).dump(2) + "\n");
}

}  // namespace pinscope
