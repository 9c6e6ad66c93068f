# End-to-end tests of the desktop app: the real binary, a real OpenGL context under Xvfb (Mesa's
# llvmpipe), and the PNG it saves. Without xvfb-run they are not registered, and CMake says so.
find_program(XVFB_RUN xvfb-run)
find_package(PkgConfig REQUIRED)
pkg_check_modules(STB REQUIRED IMPORTED_TARGET stb)

# Without a display the app says so in one line; `pinscope gui` then fails, `pinscope` runs the demo.
add_test(NAME gui_without_display_says_so
         COMMAND env -u DISPLAY -u WAYLAND_DISPLAY $<TARGET_FILE:pinscope> gui --device sim)
set_tests_properties(gui_without_display_says_so PROPERTIES LABELS "gui"
                     PASS_REGULAR_EXPRESSION "pinscope gui: error: no display \\(DISPLAY and WAYLAND_DISPLAY are unset\\)")
add_test(NAME gui_default_without_display_runs_the_demo
         COMMAND env -u DISPLAY -u WAYLAND_DISPLAY $<TARGET_FILE:pinscope>)
set_tests_properties(gui_default_without_display_runs_the_demo PROPERTIES LABELS "gui" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "no display.*running the headless demo[^\n]*\n(.|\n)*samples/s")

if(NOT XVFB_RUN)
    message(STATUS "pinscope: xvfb-run not found; the desktop app's render tests are not registered")
    return()
endif()
# xvfb-run's default screen is 8-bit; GLX wants 24.
set(XVFB ${XVFB_RUN} -a -s "-screen 0 1920x1200x24")
set(SCREENSHOT ${CMAKE_CURRENT_BINARY_DIR}/gui_screenshot.png)

add_test(NAME gui_renders_a_screenshot
         COMMAND ${XVFB} $<TARGET_FILE:pinscope> gui --device sim --frames 150 --size 1280x720 --screenshot ${SCREENSHOT})
# Screenshots of a live pipeline run alone (RUN_SERIAL): beside another test on two cores, Xvfb's
# llvmpipe and the pipeline's workers fell to 5 fps, and the last frame caught a stretch where the
# loader, starved of CPU, left the GPU lanes empty.
set_tests_properties(gui_renders_a_screenshot PROPERTIES LABELS "gui-render" TIMEOUT 300 FIXTURES_SETUP gui_screenshot
                     RUN_SERIAL TRUE)

# A check of a screenshot: test_gui_screenshot's test case `test_case` on the PNG `shot` that the tests of
# fixture `fixture` saved; it fails when the pattern names no test case.
function(screenshot_check name test_case fixture shot)
    add_test(NAME ${name} COMMAND test_gui_screenshot "--test-case=${test_case}")
    set_tests_properties(${name} PROPERTIES LABELS "gui-render" FIXTURES_REQUIRED ${fixture}
                         ENVIRONMENT "PINSCOPE_SCREENSHOT=${shot}" FAIL_REGULAR_EXPRESSION "test cases: +0 [|]")
endfunction()

add_executable(test_gui_screenshot gui_screenshot_test.cpp)
target_link_libraries(test_gui_screenshot PRIVATE pinscope_test_main pinscope_gui_model PkgConfig::STB)
add_test(NAME gui_screenshot_shows_h2d_kernel_and_d2h_lanes COMMAND test_gui_screenshot "--test-case=the app's screenshot*")
set_tests_properties(gui_screenshot_shows_h2d_kernel_and_d2h_lanes PROPERTIES LABELS "gui-render"
                     FIXTURES_REQUIRED gui_screenshot ENVIRONMENT "PINSCOPE_SCREENSHOT=${SCREENSHOT};PINSCOPE_SCREENSHOT_SIZE=1280x720")

# Preset 09 (chunked overlap, three streams) at its own zoom and at 2 s, where its kernels fold: either
# way a lane busy a third of the time must not look solid.
foreach(view preset folded)
    set(shot ${CMAKE_CURRENT_BINARY_DIR}/gui_preset09_${view}.png)
    set(zoom "")
    if(view STREQUAL "folded")
        set(zoom --view-seconds 2)
    endif()
    add_test(NAME gui_preset09_${view}_screenshot
             COMMAND ${XVFB} $<TARGET_FILE:pinscope> gui --device sim --preset chunked-overlap ${zoom} --frames 240
                     --size 1600x900 --screenshot ${shot})
    set_tests_properties(gui_preset09_${view}_screenshot PROPERTIES LABELS "gui-render" TIMEOUT 300
                         FIXTURES_SETUP gui_preset09_${view} RUN_SERIAL TRUE)
    screenshot_check(gui_preset09_${view}_lanes_are_not_solid "preset 09*" gui_preset09_${view} ${shot})
endforeach()

add_test(NAME gui_missing_font_falls_back
         COMMAND ${XVFB} $<TARGET_FILE:pinscope> gui --device sim --frames 10 --font /nonexistent/NoSuchFont.ttf)
set_tests_properties(gui_missing_font_falls_back PROPERTIES LABELS "gui-render" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "built-in font")

# Smoke test of the synthetic-trace viewer and --frame-stats; the numbers are a benchmark, not asserted.
add_test(NAME gui_frame_stats_on_a_synthetic_trace
         COMMAND ${XVFB} $<TARGET_FILE:pinscope> gui --synthetic-spans 200000 --frames 20 --frame-stats)
set_tests_properties(gui_frame_stats_on_a_synthetic_trace PROPERTIES LABELS "gui-render" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "frame build time over 17 frames[^\n]*p50[^\n]*p99[^\n]*200,000 spans")

# The compare view of the committed H100 captures (transfer-bound, pageable as A over pinned as B), with
# each span renderer: both stack A's hatched copies over B's solid ones. The GPU renderer runs on Mesa's
# llvmpipe here, asked for by name (auto picks draw lists on a software rasterizer).
set(H100_CAPTURES ${PROJECT_SOURCE_DIR}/assets/captures)
foreach(renderer gpu drawlist)
    set(shot ${CMAKE_CURRENT_BINARY_DIR}/gui_compare_${renderer}.png)
    set(says "spans: GPU shaders")
    if(renderer STREQUAL "drawlist")
        set(says "spans: draw lists")
    endif()
    add_test(NAME gui_compare_${renderer}_screenshot
             COMMAND ${XVFB} $<TARGET_FILE:pinscope> gui --open ${H100_CAPTURES}/h100-transfer-bound-pageable.pinscope
                     --compare ${H100_CAPTURES}/h100-transfer-bound-pinned.pinscope --renderer ${renderer}
                     --frames 20 --size 1600x1200 --frame-stats --screenshot ${shot})
    # Opening a file adds it to Open recent: the tests keep their own list.
    set_tests_properties(gui_compare_${renderer}_screenshot PROPERTIES LABELS "gui-render" TIMEOUT 300
                         FIXTURES_SETUP gui_compare_${renderer} PASS_REGULAR_EXPRESSION "${says}"
                         ENVIRONMENT "XDG_CONFIG_HOME=${CMAKE_CURRENT_BINARY_DIR}/xdg-config")
    screenshot_check(gui_compare_${renderer}_stacks_a_over_b "the compare view*" gui_compare_${renderer} ${shot})
endforeach()

# A trace pinscope did not record (tests/three_process_trace.h): three processes and two devices, each a
# group under its header, the train loop's spans nested three deep in categories of their own. The draw
# lists give exact colours to look for; its GPU-drawn screenshot is docs/open-trace.png.
set(OPEN_TRACE ${CMAKE_CURRENT_BINARY_DIR}/open-trace.pinscope)
set(OPEN_TRACE_SHOT ${CMAKE_CURRENT_BINARY_DIR}/gui_open_trace.png)
add_test(NAME gui_open_trace_screenshot
         COMMAND sh -c "$<TARGET_FILE:make_open_trace> ${OPEN_TRACE} 6 && ${XVFB_RUN} -a -s '-screen 0 1920x1200x24' \
                        $<TARGET_FILE:pinscope> gui --open ${OPEN_TRACE} --renderer drawlist --frames 20 \
                        --size 1600x900 --screenshot ${OPEN_TRACE_SHOT}")
set_tests_properties(gui_open_trace_screenshot PROPERTIES LABELS "gui-render" TIMEOUT 300
                     FIXTURES_SETUP gui_open_trace PASS_REGULAR_EXPRESSION "screenshot: "
                     ENVIRONMENT "XDG_CONFIG_HOME=${CMAKE_CURRENT_BINARY_DIR}/xdg-config")
screenshot_check(gui_open_trace_stacks_nested_spans_by_depth "an open trace*" gui_open_trace ${OPEN_TRACE_SHOT})

# The same trace with a click on GPU 1's header (at 500,498 in this layout) on frame 10 of 20: its lanes
# fold away under the header.
set(OPEN_TRACE_FOLD_SHOT ${CMAKE_CURRENT_BINARY_DIR}/gui_open_trace_fold.png)
add_test(NAME gui_open_trace_fold_screenshot
         COMMAND ${XVFB} $<TARGET_FILE:pinscope> gui --open ${OPEN_TRACE} --renderer drawlist --frames 20
                 --size 1600x900 --mouse 500,498 --click-at-frame 10 --screenshot ${OPEN_TRACE_FOLD_SHOT})
set_tests_properties(gui_open_trace_fold_screenshot PROPERTIES LABELS "gui-render" TIMEOUT 300
                     FIXTURES_REQUIRED gui_open_trace FIXTURES_SETUP gui_open_trace_fold
                     PASS_REGULAR_EXPRESSION "screenshot: "
                     ENVIRONMENT "XDG_CONFIG_HOME=${CMAKE_CURRENT_BINARY_DIR}/xdg-config")
screenshot_check(gui_open_trace_click_folds_a_device "a click on a device*" gui_open_trace_fold ${OPEN_TRACE_FOLD_SHOT})

# A sweep of 4 x 4 x 2 configs (num_workers 0..3 x prefetch_factor 1..4 x pin_memory both, 0.3 s each) runs
# to its end in the Sweep window (frames wait for it), and its two heatmaps render.
set(SWEEP_SHOT ${CMAKE_CURRENT_BINARY_DIR}/gui_sweep.png)
add_test(NAME gui_sweep_screenshot
         COMMAND ${XVFB} $<TARGET_FILE:pinscope> gui --device sim --run-sweep 0.3 --frames 20 --size 1600x900
                 --screenshot ${SWEEP_SHOT})
set_tests_properties(gui_sweep_screenshot PROPERTIES LABELS "gui-render" TIMEOUT 300 FIXTURES_SETUP gui_sweep
                     RUN_SERIAL TRUE PASS_REGULAR_EXPRESSION "sweep: 32 configs[^\n]*26 distinct ran")
screenshot_check(gui_sweep_heatmaps_show_cells_of_many_colours "the sweep*" gui_sweep ${SWEEP_SHOT})

# Presentation mode on a lesson's question: the Lessons panel beside the live timeline, the question in
# large type.
set(PRESENTATION_SHOT ${CMAKE_CURRENT_BINARY_DIR}/gui_presentation.png)
add_test(NAME gui_presentation_screenshot
         COMMAND ${XVFB} $<TARGET_FILE:pinscope> gui --device sim --lesson workers-hide-decode --presentation
                 --lesson-page 4 --frames 60 --size 1600x900 --screenshot ${PRESENTATION_SHOT})
set_tests_properties(gui_presentation_screenshot PROPERTIES LABELS "gui-render" TIMEOUT 300
                     FIXTURES_SETUP gui_presentation RUN_SERIAL TRUE PASS_REGULAR_EXPRESSION "screenshot: ")
screenshot_check(gui_presentation_shows_the_question_in_large_type "presentation mode*" gui_presentation ${PRESENTATION_SHOT})

# The Controls' preview holding an edit: the predictor says what it changes before it is applied, and the
# pointer over the num_workers slider shows the predicted curve across its range.
set(PREVIEW_SHOT ${CMAKE_CURRENT_BINARY_DIR}/gui_preview.png)
add_test(NAME gui_preview_screenshot
         COMMAND ${XVFB} $<TARGET_FILE:pinscope> gui --device sim --preset "Loading-bound (io_us)"
                 --preview-edit num_workers=8 --mouse 126,472 --frames 60 --size 1600x900
                 --screenshot ${PREVIEW_SHOT})
set_tests_properties(gui_preview_screenshot PROPERTIES LABELS "gui-render" TIMEOUT 300 RUN_SERIAL TRUE
                     PASS_REGULAR_EXPRESSION "preview: num_workers: 0 -> 8\npreview: predicted samples/s [0-9]+ -> [0-9]+")

# Every lesson as a class sees it: the app under Xvfb on its answer page, measuring the runs while it draws
# (a frame a second meanwhile), prints what its answer page shows and whether the promise was kept. Label
# lab: the promises compare speeds, so these run alone, with the lab tests' retries.
file(GLOB LESSON_FILES ${PROJECT_SOURCE_DIR}/assets/lessons/*.json)
foreach(lesson_file ${LESSON_FILES})
    get_filename_component(lesson ${lesson_file} NAME_WE)
    add_test(NAME gui_lesson_${lesson}_keeps_its_promise_in_the_app
             COMMAND ${XVFB} $<TARGET_FILE:pinscope> gui --device sim --lesson ${lesson} --presentation
                     --lesson-page 99 --frames 3 --size 1280x720)
    set_tests_properties(gui_lesson_${lesson}_keeps_its_promise_in_the_app PROPERTIES LABELS "lab" TIMEOUT 300
                         RUN_SERIAL TRUE PASS_REGULAR_EXPRESSION "\\(in the app\\): kept\n"
                         ENVIRONMENT "XDG_CACHE_HOME=${CMAKE_CURRENT_BINARY_DIR}/lesson-cache")
endforeach()

# What the gui-render tests run: the Release stage of `make test` builds these alone (tests/CMakeLists.txt).
add_dependencies(release_only_tests pinscope test_gui_screenshot make_open_trace)
