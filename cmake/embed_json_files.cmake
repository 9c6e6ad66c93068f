# Data files compiled in (presets, lessons): pinscope_embed_json_files(OUT FOLDER) sets OUT to one
# `{"name.json", R"pinscope_json(...)pinscope_json"},` line per *.json file in FOLDER, in name order, for a
# configure_file template to hold. Editing a file, or adding one, reconfigures.
function(pinscope_embed_json_files out_var folder)
    file(GLOB files CONFIGURE_DEPENDS ${folder}/*.json)
    list(SORT files)
    set(entries "")
    foreach(file ${files})
        file(READ ${file} text)
        get_filename_component(name ${file} NAME)
        string(APPEND entries "    {\"${name}\", R\"pinscope_json(${text})pinscope_json\"},\n")
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
    endforeach()
    set(${out_var} "${entries}" PARENT_SCOPE)
endfunction()
