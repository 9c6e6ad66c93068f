#include "core/pipeline/loaded_batch.h"

#include <new>

#include <fmt/format.h>

#include "core/pipeline/dataset.h"

namespace pinscope {

WorkerError::WorkerError(const WorkerFailure& failure)
    : std::runtime_error(fmt::format("Caught {} in DataLoader worker process {}. Original: {}", failure.type,
                                     failure.worker, failure.message)),
      failure_(failure) {}

std::string python_exception_name(const std::exception& error) {
    if (auto* dataset_error = dynamic_cast<const DatasetError*>(&error)) return dataset_error->type();
    if (dynamic_cast<const std::out_of_range*>(&error)) return "IndexError";
    if (dynamic_cast<const std::invalid_argument*>(&error) || dynamic_cast<const std::domain_error*>(&error))
        return "ValueError";
    if (dynamic_cast<const std::overflow_error*>(&error)) return "OverflowError";
    if (dynamic_cast<const std::bad_alloc*>(&error)) return "MemoryError";
    return "RuntimeError";
}

}  // namespace pinscope
