#pragma once
// `pinscope bench --predictor-check N`: the predictor judged on N random configs it was not tuned on
// (core/lab/random_configs.h), each predicted and then run on the simulated GPU; prints the distribution
// of the errors in samples/s, stall and GPU busy, and the configs that miss most. With `repeat`, each
// config runs twice and the two runs' spread is printed beside the errors: the floor under them. With
// `passes` above 1, the whole set runs that many times over and each config is judged on the medians of
// its passes (the first pass alone is printed beside).
#include <cstdint>

namespace pinscope {

int run_predictor_check(int count, uint64_t seed, double seconds, bool repeat, int passes, bool json);

}  // namespace pinscope
