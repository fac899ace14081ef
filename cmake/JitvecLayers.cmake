# cmake/JitvecLayers.cmake: the layers of src/, enforced by the build (ARCHITECTURE.md).
#
# Each folder of src/ is one layer, and a layer may include only its own headers and those of
# the layers below it. jitvec_add_layers() makes, for each layer, an object library of its
# sources whose only way to the sources' headers is an include *facade* in the build tree:
#
#   <build>/layers/<layer>/core -> src/core          (a symbolic link per layer at or below it)
#   <build>/layers/<layer>/launch -> src/launch
#   ...
#   <build>/layers/<layer>/jitvec/array.hpp -> include/jitvec/array.hpp   (public headers that
#                                                   belong to that layer or one below it)
#
# so `#include "cuda/memory.hpp"` in src/core/array.cpp fails to compile ("No such file"),
# instead of slipping through a review. The library is the objects of every layer together.
# Public headers belong to the core layer unless JITVEC_PUBLIC_HEADER_LAYERS says otherwise
# (engine.hpp and ufunc.hpp are the engine's API; device.hpp is implemented by cuda/).
#
# A wrong-way edge that must be tolerated for a while is named in JITVEC_LAYER_EXCEPTIONS as
# "<layer>:<path under src/ or include/>" (e.g. "cache:jitvec/engine.hpp"): that one header
# (or folder) is added to that layer's facade, and configuring says so in a warning.
#
# Folders of src/ that are not in the list (a new one) are built as the top library layer,
# with a warning asking for their place in the order. Layers that have no folder are skipped.

# Lowest first. cli is not part of the library: it is built on top by the root CMakeLists.txt.
set(JITVEC_LAYERS core launch codegen kernels compile cpu cuda cache definitions engine interop)
# <header>=<layer> for public headers outside the core layer.
set(JITVEC_PUBLIC_HEADER_LAYERS
    accuracy.hpp=engine device.hpp=cuda engine.hpp=engine graph.hpp=engine gufunc.hpp=engine ufunc.hpp=engine jitvec.hpp=engine dlpack.hpp=interop)

# Removes the symbolic links in `folder` (never what they point to), so that a facade holds
# only what this configure puts there.
function(_jitvec_clear_facade folder)
  file(GLOB entries LIST_DIRECTORIES true "${folder}/*" "${folder}/jitvec/*")
  foreach(entry IN LISTS entries)
    if(IS_SYMLINK "${entry}")
      file(REMOVE "${entry}")
    endif()
  endforeach()
endfunction()

# The layer a public header belongs to.
function(_jitvec_public_header_layer header out)
  set(layer core)
  foreach(pair IN LISTS JITVEC_PUBLIC_HEADER_LAYERS)
    string(REPLACE "=" ";" pair "${pair}")
    list(GET pair 0 name)
    list(GET pair 1 owner)
    if(name STREQUAL header)
      set(layer ${owner})
    endif()
  endforeach()
  set(${out} ${layer} PARENT_SCOPE)
endfunction()

# Makes <build>/layers/<name>: links to the src/ folders in `folders` and to the public headers
# of the layers in `layers`, plus the exceptions granted to `name`. Sets <out> to its path.
function(jitvec_make_facade name folders layers out)
  set(facade "${PROJECT_BINARY_DIR}/layers/${name}")
  file(MAKE_DIRECTORY "${facade}/jitvec")
  _jitvec_clear_facade("${facade}")
  foreach(folder IN LISTS folders)
    file(CREATE_LINK "${PROJECT_SOURCE_DIR}/src/${folder}" "${facade}/${folder}" SYMBOLIC)
  endforeach()
  file(GLOB public_headers CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/include/jitvec/*")
  foreach(header_path IN LISTS public_headers)
    get_filename_component(header "${header_path}" NAME)
    _jitvec_public_header_layer(${header} owner)
    if(owner IN_LIST layers)
      file(CREATE_LINK "${header_path}" "${facade}/jitvec/${header}" SYMBOLIC)
    endif()
  endforeach()
  foreach(exception IN LISTS JITVEC_LAYER_EXCEPTIONS)
    string(REGEX MATCH "^([a-z_]+):(.+)$" matched "${exception}")
    if(matched AND CMAKE_MATCH_1 STREQUAL name)
      set(path "${CMAKE_MATCH_2}")
      if(path MATCHES "^jitvec/")
        set(target "${PROJECT_SOURCE_DIR}/include/${path}")
      else()
        set(target "${PROJECT_SOURCE_DIR}/src/${path}")
      endif()
      get_filename_component(parent "${facade}/${path}" DIRECTORY)
      file(MAKE_DIRECTORY "${parent}")
      if(NOT EXISTS "${facade}/${path}" OR IS_SYMLINK "${facade}/${path}")
        file(CREATE_LINK "${target}" "${facade}/${path}" SYMBOLIC)
      endif()
      message(WARNING "jitvec: layer '${name}' may include '${path}' against the layer order "
                      "(JITVEC_LAYER_EXCEPTIONS); remove the exception once the include is gone")
    endif()
  endforeach()
  set(${out} "${facade}" PARENT_SCOPE)
endfunction()

# Defines one OBJECT library jitvec_layer_<layer> per layer of src/ that has sources, each
# compiled against its own facade and linked against `deps` (third-party usage requirements
# only). Sets JITVEC_LAYER_TARGETS (the object libraries, lowest first), JITVEC_PRESENT_LAYERS
# (the layers with a folder) and JITVEC_LAYER_FACADE_<layer> in the caller's scope.
function(jitvec_add_layers deps)
  # Every source and header of src/, so that the build configures again when a file or a
  # folder (a new layer) appears or goes.
  file(GLOB_RECURSE all_files CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/*.cpp"
       "${PROJECT_SOURCE_DIR}/src/*.hpp" "${PROJECT_SOURCE_DIR}/src/*.cuh")
  file(GLOB entries LIST_DIRECTORIES true "${PROJECT_SOURCE_DIR}/src/*")
  set(present)
  foreach(layer IN LISTS JITVEC_LAYERS)
    if(IS_DIRECTORY "${PROJECT_SOURCE_DIR}/src/${layer}")
      list(APPEND present ${layer})
    endif()
  endforeach()
  foreach(entry IN LISTS entries)
    get_filename_component(folder "${entry}" NAME)
    if(IS_DIRECTORY "${entry}" AND NOT folder IN_LIST JITVEC_LAYERS AND NOT folder STREQUAL "cli")
      message(WARNING "jitvec: src/${folder} is not in the layer order (cmake/JitvecLayers.cmake, "
                      "JITVEC_LAYERS); building it as the top layer of the library")
      list(APPEND present ${folder})
    endif()
  endforeach()

  set(below)       # the folders at or below the current layer
  set(below_all)   # the same, with layers that have no folder (for public header ownership)
  set(targets)
  foreach(layer IN LISTS JITVEC_LAYERS present)
    if(layer IN_LIST below_all)
      continue()
    endif()
    list(APPEND below_all ${layer})
    if(NOT layer IN_LIST present)
      continue()
    endif()
    list(APPEND below ${layer})
    jitvec_make_facade(${layer} "${below}" "${below_all}" facade)
    set(JITVEC_LAYER_FACADE_${layer} "${facade}" PARENT_SCOPE)
    file(GLOB_RECURSE sources "${PROJECT_SOURCE_DIR}/src/${layer}/*.cpp")
    if(NOT sources)
      continue()
    endif()
    add_library(jitvec_layer_${layer} OBJECT ${sources})
    target_include_directories(jitvec_layer_${layer} PRIVATE "${facade}")
    target_link_libraries(jitvec_layer_${layer} PRIVATE ${deps})
    target_compile_features(jitvec_layer_${layer} PRIVATE cxx_std_17)
    target_compile_options(jitvec_layer_${layer} PRIVATE -Wall -Wextra)
    set_target_properties(jitvec_layer_${layer} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    list(APPEND targets jitvec_layer_${layer})
  endforeach()
  set(JITVEC_LAYER_TARGETS ${targets} PARENT_SCOPE)
  set(JITVEC_PRESENT_LAYERS ${below} PARENT_SCOPE)
endfunction()
