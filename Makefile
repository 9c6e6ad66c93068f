# The two commands of pinscope (see README.md). Both install what is missing first.
#   make run    builds in Release and opens the desktop app (without a display: the headless demo)
#   make test   builds and runs every test: Release, then AddressSanitizer + UndefinedBehaviorSanitizer,
#               then ThreadSanitizer on the pipeline tests
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: run test deps build test-release test-asan test-tsan bench clean

deps:
	@scripts/install-deps.sh

build: deps
	cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build build -j $(JOBS)

run: build
	./build/app/pinscope

bench: build
	./build/app/pinscope bench

test: test-release test-asan test-tsan

test-release: build
	ctest --test-dir build --output-on-failure -j $(JOBS)

# Sanitizer builds leave CUDA out: nvcc does not take these flags, and the release build compiles it.
test-asan: deps
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPINSCOPE_CUDA=OFF \
	    -DPINSCOPE_SANITIZE=address,undefined $(CMAKE_FLAGS)
	cmake --build build-asan -j $(JOBS)
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
	    ctest --test-dir build-asan --output-on-failure -j $(JOBS) -LE gui-render

test-tsan: deps
	cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPINSCOPE_CUDA=OFF -DPINSCOPE_GUI=OFF \
	    -DPINSCOPE_SANITIZE=thread $(CMAKE_FLAGS)
	cmake --build build-tsan -j $(JOBS) --target test_sim_device test_data_loader test_session test_collector
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ctest --test-dir build-tsan --output-on-failure -j $(JOBS) -L "pipeline|device"

clean:
	rm -rf build build-asan build-tsan
