#pragma once
// `pinscope bench --predict`: how many configs a second the predictor evaluates on this machine, over a
// sweep-like grid of decode-, io-, transfer- and kernel-bound loads.
namespace pinscope {

int run_predict_bench(bool json);

}  // namespace pinscope
