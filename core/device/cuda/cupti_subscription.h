#pragma once
// The process's one CUPTI subscription, shared by the recorders of every device.
//
// CUPTI's activity state belongs to the process: one subscriber, one pair of buffer callbacks, activity
// kinds enabled for every context at once. So the first recorder to join subscribes, enables the kinds
// and starts the flush thread; the last to leave undoes all three; in between, each GPU record goes to
// the recorder of its device (the record's deviceId). The batch id travels as an external correlation
// id, whose record names no device, so GPU records meet their batch ids here, once for all devices:
// CUPTI's correlation ids are unique within the process.
//
// Records of a device no recorder has joined for, and records of work that started before its recorder
// joined (a device calibrating while another device's recorder keeps the kinds on, delivered late), are
// dropped unseen, as a lone recorder never sees its device's calibration.
#include <cstdint>
#include <string>

#include "core/device/cuda/cupti_library.h"

namespace pinscope::cuda {

class CuptiRecorder;

namespace cupti_subscription {

// Adds `recorder` as the recorder of CUPTI device `device_id`. false, with `why` set to one line, when
// CUPTI cannot record: another profiler holds it, or this device has a recorder already.
bool join(const CuptiLibrary& cupti, CuptiRecorder* recorder, uint32_t device_id, std::string* why);

// Delivers the records of work that has completed and gives up on batch ids that will not come (their
// spans are recorded without one). The caller has synchronised the work it wants delivered.
void flush();

// Delivers `recorder`'s last records and removes it; its spans still waiting for a batch id are
// recorded without one. The last recorder to leave disables the kinds and unsubscribes. The caller
// has synchronised its device.
void leave(CuptiRecorder* recorder);

}  // namespace cupti_subscription
}  // namespace pinscope::cuda
