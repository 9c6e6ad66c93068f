#include "core/device/cuda/cupti_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include <fmt/format.h>

namespace pinscope::cuda {
namespace {

std::vector<std::string> candidates() {
    std::vector<std::string> paths = {PINSCOPE_CUPTI_SONAME};
    auto add_folder = [&](const std::string& folder) {
        paths.push_back(folder + "/" + PINSCOPE_CUPTI_SONAME);
    };
    add_folder(PINSCOPE_CUPTI_LIBRARY_DIR);
    if (const char* home = std::getenv("CUDA_HOME")) add_folder(std::string(home) + "/lib64");
    for (const char* folder : {"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                               "/usr/local/cuda/extras/CUPTI/lib64", "/usr/local/cuda/lib"})
        add_folder(folder);
    return paths;
}

template <class F>
bool bind(void* handle, const char* name, F& slot) {
    slot = reinterpret_cast<F>(dlsym(handle, name));
    return slot != nullptr;
}

CuptiLibrary* load(std::string& why) {
    static CuptiLibrary library;
    void* handle = nullptr;
    std::string first_error;
    for (const std::string& path : candidates()) {
        handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle) {
            library.path = path;
            break;
        }
        if (first_error.empty()) first_error = dlerror();
    }
    if (!handle) {
        why = fmt::format("CUPTI library {} not found ({}); add its folder to LD_LIBRARY_PATH",
                          PINSCOPE_CUPTI_SONAME, first_error);
        return nullptr;
    }
    bool ok = true;
    ok &= bind(handle, "cuptiGetVersion", library.get_version);
    ok &= bind(handle, "cuptiGetResultString", library.get_result_string);
    ok &= bind(handle, "cuptiSubscribe", library.subscribe);
    ok &= bind(handle, "cuptiUnsubscribe", library.unsubscribe);
    ok &= bind(handle, "cuptiActivityRegisterCallbacks", library.register_callbacks);
    ok &= bind(handle, "cuptiGetTimestamp", library.get_timestamp);
    ok &= bind(handle, "cuptiActivityEnable", library.enable);
    ok &= bind(handle, "cuptiActivityDisable", library.disable);
    ok &= bind(handle, "cuptiActivityFlushAll", library.flush_all);
    ok &= bind(handle, "cuptiActivityGetNextRecord", library.next_record);
    ok &= bind(handle, "cuptiActivityGetNumDroppedRecords", library.dropped_records);
    ok &= bind(handle, "cuptiActivityPushExternalCorrelationId", library.push_external_id);
    ok &= bind(handle, "cuptiActivityPopExternalCorrelationId", library.pop_external_id);
    ok &= bind(handle, "cuptiGetStreamIdEx", library.stream_id);
    ok &= bind(handle, "cuptiGetDeviceId", library.device_id);
    bind(handle, "cuptiSubscribe_v2", library.subscribe_v2);
    bind(handle, "cuptiActivitySetAttribute", library.set_attribute);
    bind(handle, "cuptiActivityRegisterTimestampCallback", library.register_timestamp_callback);
    if (!ok) {
        why =
            "the CUPTI library is too old for pinscope (a function it needs is missing); use the toolkit's "
            "own";
        return nullptr;
    }
    return &library;
}

}  // namespace

const CuptiLibrary* CuptiLibrary::get(std::string* why) {
    static std::once_flag once;
    static CuptiLibrary* library = nullptr;
    static std::string failure;
    std::call_once(once, [] { library = load(failure); });
    if (!library && why) *why = failure;
    return library;
}

std::string CuptiLibrary::message(CUptiResult result) const {
    const char* text = nullptr;
    if (get_result_string && get_result_string(result, &text) == CUPTI_SUCCESS && text) return text;
    return fmt::format("CUPTI error {}", static_cast<int>(result));
}

std::string CuptiLibrary::version() const {
    uint32_t api = 0;
    if (!get_version || get_version(&api) != CUPTI_SUCCESS) return {};
    return fmt::format("API {}", api);
}

}  // namespace pinscope::cuda
