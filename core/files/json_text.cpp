#include "core/files/json_text.h"

#include <vector>

#include <fmt/format.h>

namespace pinscope {
namespace {

using json = nlohmann::json;

// nlohmann's own DOM builder, with the key path of the value being read kept beside it, so that an error
// can say where it is: a number that overflows a double is an error of the parser (406), not of a value
// a later check could name.
class KeyTrackingSax {
  public:
    explicit KeyTrackingSax(json& root) : dom_(root, false) {}

    bool null() { return value() && dom_.null(); }
    bool boolean(bool v) { return value() && dom_.boolean(v); }
    bool number_integer(json::number_integer_t v) { return value() && dom_.number_integer(v); }
    bool number_unsigned(json::number_unsigned_t v) { return value() && dom_.number_unsigned(v); }
    bool number_float(json::number_float_t v, const json::string_t& s) {
        return value() && dom_.number_float(v, s);
    }
    bool string(json::string_t& v) { return value() && dom_.string(v); }
    bool binary(json::binary_t& v) { return value() && dom_.binary(v); }
    bool start_object(std::size_t n) { return value() && enter(false) && dom_.start_object(n); }
    bool key(json::string_t& k) {
        frames_.back().key = k;
        return dom_.key(k);
    }
    bool end_object() {
        frames_.pop_back();
        return dom_.end_object();
    }
    bool start_array(std::size_t n) { return value() && enter(true) && dom_.start_array(n); }
    bool end_array() {
        frames_.pop_back();
        return dom_.end_array();
    }
    // `position` is how many bytes the parser had read: where the bad token ends.
    template <class Exception>
    bool parse_error(std::size_t position, const std::string& token, const Exception& error) {
        if (problem_.empty()) {
            error_at_ = position;
            if (error.id == 406)  // number overflow: say which number, and where
                problem_ = fmt::format("the number {} at {} is beyond the range of a double", token, path());
        }
        return false;
    }

    const std::string& problem() const { return problem_; }
    size_t error_at() const { return error_at_; }

  private:
    struct Frame {
        bool array = false;
        std::string key;
        size_t started = 0;  // in an array: the elements begun so far
    };

    // A value starts: in an array, it is the next element.
    bool value() {
        if (!frames_.empty() && frames_.back().array) ++frames_.back().started;
        return true;
    }
    bool enter(bool array) {
        if (static_cast<int>(frames_.size()) >= kMaxJsonDepth) {
            problem_ = fmt::format("it nests deeper than {} levels", kMaxJsonDepth);
            return false;
        }
        frames_.push_back(Frame{array, {}, 0});
        return true;
    }
    // "config.runs[1].num_workers": where the value that failed to read sits. That value has not begun
    // (value() was not called for it), so in the innermost array it is the element after those begun.
    std::string path() const {
        std::string out;
        for (size_t i = 0; i < frames_.size(); ++i) {
            const Frame& f = frames_[i];
            if (f.array)
                out += fmt::format("[{}]", i + 1 == frames_.size() ? f.started : f.started - 1);
            else if (!f.key.empty())
                out += (out.empty() ? "" : ".") + f.key;
        }
        return out.empty() ? std::string("the top level") : fmt::format("\"{}\"", out);
    }

    nlohmann::detail::json_sax_dom_parser<json> dom_;
    std::vector<Frame> frames_;
    std::string problem_;
    size_t error_at_ = 0;
};

// Line and column (1-based) of byte `offset` in `text`.
std::pair<size_t, size_t> line_and_column(std::string_view text, size_t offset) {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n')
            ++line, column = 1;
        else
            ++column;
    }
    return {line, column};
}

}  // namespace

json parse_json_text(std::string_view text) {
    json root;
    KeyTrackingSax sax(root);
    bool ok = false;
    try {
        ok = json::sax_parse(text.begin(), text.end(), &sax);
    } catch (const json::exception&) {  // nlohmann throws for sizes it cannot hold
        throw JsonTextError("it cannot be read as JSON");
    }
    if (ok) return root;
    const auto [line, column] = line_and_column(text, sax.error_at() > 0 ? sax.error_at() - 1 : 0);
    if (sax.problem().empty())
        throw JsonTextError(fmt::format("not valid JSON at line {}, column {}", line, column));
    if (sax.error_at() == 0) throw JsonTextError(sax.problem());  // the handler stopped it: too deep
    throw JsonTextError(fmt::format("{} (line {}, column {})", sax.problem(), line, column));
}

}  // namespace pinscope
