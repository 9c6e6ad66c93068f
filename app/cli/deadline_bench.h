#pragma once
// `pinscope bench --deadlines`: how far past its seconds, or past stop(), a run ends when the work in hand
// would take far longer (a 10 s kernel, a batch collated at 1000x slow motion, a sample that waits a
// second), on the simulated GPU. The runs cut that work (Device::cut_work, the loader's interrupt); this
// says what the cut costs in time.
namespace pinscope {

int run_deadline_bench(bool json);

}  // namespace pinscope
