# The layering rules of docs/design.md ("Layers and rooms"), checked on the sources (cmake -DROOT=<repo> -P check_layers.cmake):
# - nothing under core/ includes a GUI header (ImGui, GLFW, OpenGL) or anything from app/;
# - headers under app/gui/ and core/pipeline/ pull in no core/device/cuda/ header, directly or through
#   the headers they include (only the device factory's .cpp may);
# - the desktop app's model (app/gui/model/) includes nothing from the command line (app/cli/);
# - core/units and core/files include nothing from other core folders;
# - no string in core/ names a command-line flag: core speaks config keys (num_workers=0), and the
#   command line turns them into flags.
# Fails with one line per broken rule.
cmake_minimum_required(VERSION 3.24)
if(NOT ROOT)
    message(FATAL_ERROR "pass -DROOT=<the repository>")
endif()

# The project headers a file includes (quoted includes only).
function(direct_includes file out)
    file(STRINGS "${ROOT}/${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
    set(found "")
    foreach(line ${lines})
        string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\".*$" "\\1" header "${line}")
        if(EXISTS "${ROOT}/${header}")
            list(APPEND found "${header}")
        endif()
    endforeach()
    set(${out} "${found}" PARENT_SCOPE)
endfunction()

# Every project header reachable from `file`.
function(include_closure file out)
    set(seen "")
    set(todo "${file}")
    while(todo)
        list(POP_FRONT todo current)
        direct_includes("${current}" next)
        foreach(header ${next})
            if(NOT header IN_LIST seen)
                list(APPEND seen "${header}")
                list(APPEND todo "${header}")
            endif()
        endforeach()
    endwhile()
    set(${out} "${seen}" PARENT_SCOPE)
endfunction()

set(broken "")

file(GLOB_RECURSE core_files RELATIVE "${ROOT}" "${ROOT}/core/*.h" "${ROOT}/core/*.cpp" "${ROOT}/core/*.cu")
foreach(file ${core_files})
    file(STRINGS "${ROOT}/${file}" gui_lines REGEX "#[ \t]*include[ \t]*[<\"](imgui|GLFW|GL/|app/)")
    if(gui_lines)
        list(APPEND broken "${file} includes a GUI or app header: ${gui_lines}")
    endif()
    file(STRINGS "${ROOT}/${file}" flag_lines REGEX "\"[^\"]*--[a-z][a-z-]*[^\"]*\"")
    foreach(line ${flag_lines})
        if(NOT line MATCHES "^[ \t]*//")
            list(APPEND broken "${file} names a command-line flag: ${line}")
        endif()
    endforeach()
endforeach()

file(GLOB_RECURSE cuda_free RELATIVE "${ROOT}" "${ROOT}/app/gui/*.h" "${ROOT}/core/pipeline/*.h")
foreach(header ${cuda_free})
    include_closure("${header}" reached)
    foreach(h ${reached})
        if(h MATCHES "^core/device/cuda/")
            list(APPEND broken "${header} pulls in ${h}")
        endif()
    endforeach()
endforeach()

file(GLOB model_files RELATIVE "${ROOT}" "${ROOT}/app/gui/model/*.h" "${ROOT}/app/gui/model/*.cpp")
foreach(file ${model_files})
    include_closure("${file}" reached)
    foreach(h ${reached})
        if(h MATCHES "^app/cli/")
            list(APPEND broken "${file} (the app's model) pulls in ${h}, from the command line")
        endif()
    endforeach()
endforeach()

# The floor: core/units and core/files are used by every layer and use none.
file(GLOB_RECURSE floor_files RELATIVE "${ROOT}" "${ROOT}/core/units/*" "${ROOT}/core/files/*")
foreach(file ${floor_files})
    string(REGEX REPLACE "^(core/[a-z]+)/.*$" "\\1" room "${file}")
    direct_includes("${file}" next)
    foreach(h ${next})
        if(h MATCHES "^core/" AND NOT h MATCHES "^${room}/")
            list(APPEND broken "${file} includes ${h}: ${room} is a floor every layer stands on")
        endif()
    endforeach()
endforeach()

if(broken)
    list(JOIN broken "\n" text)
    message(FATAL_ERROR "layering broken:\n${text}")
endif()
list(LENGTH core_files n_core)
list(LENGTH cuda_free n_free)
list(LENGTH model_files n_model)
message(STATUS "layers hold: ${n_core} core files, ${n_free} GUI and pipeline headers, ${n_model} model files checked")
