#pragma once
// libcupti, loaded at run time with dlopen. A binary built with the toolkit then starts on a machine
// without CUPTI (or with a broken one) and says why it records GPU spans from CUDA events instead,
// rather than failing to start. The headers come from the toolkit; only the calls are looked up.
//
// Where it looks: the soname ("libcupti.so.13") through the usual search path (LD_LIBRARY_PATH,
// ldconfig), then the toolkit's library folder found when this was built, then the usual toolkit
// folders under /usr/local/cuda.
#include <cupti.h>

#include <string>

namespace pinscope::cuda {

struct CuptiLibrary {
    std::string path;  // the file that was loaded

    decltype(&::cuptiGetVersion) get_version = nullptr;
    decltype(&::cuptiGetResultString) get_result_string = nullptr;
    decltype(&::cuptiSubscribe) subscribe = nullptr;
    decltype(&::cuptiSubscribe_v2) subscribe_v2 = nullptr;  // optional: names the other profiler
    decltype(&::cuptiUnsubscribe) unsubscribe = nullptr;
    decltype(&::cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
    decltype(&::cuptiActivityRegisterTimestampCallback) register_timestamp_callback = nullptr;  // optional
    decltype(&::cuptiGetTimestamp) get_timestamp = nullptr;
    decltype(&::cuptiActivityEnable) enable = nullptr;
    decltype(&::cuptiActivityDisable) disable = nullptr;
    decltype(&::cuptiActivityFlushAll) flush_all = nullptr;
    decltype(&::cuptiActivityGetNextRecord) next_record = nullptr;
    decltype(&::cuptiActivityGetNumDroppedRecords) dropped_records = nullptr;
    decltype(&::cuptiActivityPushExternalCorrelationId) push_external_id = nullptr;
    decltype(&::cuptiActivityPopExternalCorrelationId) pop_external_id = nullptr;
    decltype(&::cuptiGetStreamIdEx) stream_id = nullptr;
    decltype(&::cuptiGetDeviceId) device_id = nullptr;
    decltype(&::cuptiActivitySetAttribute) set_attribute = nullptr;  // optional

    // Loaded once per process and kept. nullptr, with `why` set, when it cannot be had.
    static const CuptiLibrary* get(std::string* why);

    std::string message(CUptiResult result) const;  // CUPTI's words for a result code
    std::string version() const;                    // "13.0.1 (API 130001)" or "" when unknown
};

}  // namespace pinscope::cuda
