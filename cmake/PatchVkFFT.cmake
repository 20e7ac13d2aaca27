# Makes a copy of Debian's vkFFT.h (libvkfft-dev 1.2.26) that compiles
# against Debian's glslang 12: VkFFT fills glslang_resource_t positionally,
# and glslang 12 added nine EXT mesh-shader limits after
# max_mesh_view_count_nv that VkFFT's initializer lacks (g++: "cannot
# convert brace-enclosed initializer list to int"). The copy inserts them
# (glslang's default values); a header that already has them, or a glslang
# without them, is copied as it is.
# In: HEADER (the installed vkFFT.h), GLSLANG_C_INTERFACE, OUT.
file(READ "${HEADER}" text)
file(READ "${GLSLANG_C_INTERFACE}" glslang)
string(FIND "${glslang}" "max_mesh_output_vertices_ext" glslang_has_ext)
string(FIND "${text}" "maxMeshOutputVerticesEXT" vkfft_has_ext)
if(glslang_has_ext GREATER -1 AND vkfft_has_ext EQUAL -1)
  set(anchor "/* .maxMeshViewCountNV = */ 4,\n")
  string(FIND "${text}" "${anchor}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${HEADER}: no max_mesh_view_count_nv initializer to extend; this VkFFT needs another patch")
  endif()
  set(limits "")
  foreach(pair maxMeshOutputVerticesEXT=256 maxMeshOutputPrimitivesEXT=256 maxMeshWorkGroupSizeX_EXT=128
               maxMeshWorkGroupSizeY_EXT=128 maxMeshWorkGroupSizeZ_EXT=128 maxTaskWorkGroupSizeX_EXT=128
               maxTaskWorkGroupSizeY_EXT=128 maxTaskWorkGroupSizeZ_EXT=128 maxMeshViewCountEXT=4)
    string(REPLACE "=" ";" kv "${pair}")
    list(GET kv 0 name)
    list(GET kv 1 value)
    string(APPEND limits "\t\t\t\t/* .${name} = */ ${value},\n")
  endforeach()
  string(REPLACE "${anchor}" "${anchor}${limits}" text "${text}")
endif()
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
