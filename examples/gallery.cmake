# SPDX-License-Identifier: MIT
# The gallery: resamples a synthetic image through every mode and
# writes PNG images and gradient heat-maps with libpng (Debian: libpng-dev).
# docs/img/ holds a committed run (`build/examples/drs_gallery docs/img`); the
# test runs it into the build tree and checks that every file exists, is a
# PNG, and that every picture docs/differentiable-resampling.md shows is made.
#
# This file is also the test's script: cmake -DGALLERY=exe -DOUT=dir
# -DDOC=page -P gallery.cmake.
set(_gallery_files
  input.png input_crop.png
  down_nearest.png down_linear.png down_linear_aa.png down_cubic.png down_cubic_aa.png
  down_area.png down_linear_onnx.png down_bilinear_pillow.png down_bicubic_pillow.png
  down_torch_bilinear_aa.png
  up_nearest.png up_linear.png up_cubic.png up_bicubic_pillow.png
  grid_bilinear_zeros.png grid_nearest_zeros.png grid_bicubic_zeros.png
  grid_bilinear_border.png grid_bilinear_reflection.png
  grad_footprint_linear.png grad_footprint_linear_aa.png grad_footprint_cubic_aa.png
  grad_loss_cubic.png grad_grid_magnitude.png grad_scales_curve.png)

if(CMAKE_SCRIPT_MODE_FILE)
  file(MAKE_DIRECTORY ${OUT})
  foreach(f ${_gallery_files}) # files of an earlier run must not count
    file(REMOVE ${OUT}/${f})
  endforeach()
  execute_process(COMMAND ${GALLERY} ${OUT} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gallery exited with ${rc}")
  endif()
  set(_want ${_gallery_files})
  if(DOC AND EXISTS ${DOC}) # every image the teaching page shows
    file(STRINGS ${DOC} _lines REGEX "img/[a-z0-9_]+\\.png")
    foreach(l ${_lines})
      string(REGEX MATCHALL "img/[a-z0-9_]+\\.png" _m "${l}")
      foreach(m ${_m})
        string(REPLACE "img/" "" m ${m})
        list(APPEND _want ${m})
      endforeach()
    endforeach()
    list(REMOVE_DUPLICATES _want)
  endif()
  list(LENGTH _want n)
  foreach(f ${_want})
    if(NOT EXISTS ${OUT}/${f})
      message(FATAL_ERROR "gallery did not write ${f}")
    endif()
    file(READ ${OUT}/${f} sig LIMIT 8 HEX)
    if(NOT sig STREQUAL "89504e470d0a1a0a")
      message(FATAL_ERROR "${f} is not a PNG file (${sig})")
    endif()
  endforeach()
  message(STATUS "gallery: ${n} PNG files present")
  return()
endif()

# libpng is optional: without it the gallery (and its test) is skipped.
find_package(PNG)
if(NOT PNG_FOUND)
  message(STATUS "dresample: libpng not found (Debian: libpng-dev): the gallery example is skipped")
  return()
endif()
add_executable(drs_gallery ${CMAKE_CURRENT_LIST_DIR}/gallery.c)
target_compile_options(drs_gallery PRIVATE ${DRS_WARN})
target_link_libraries(drs_gallery PRIVATE dresample::dresample PNG::PNG dresample::m)
if(DRS_BUILD_TESTS)
  add_test(NAME example_gallery
           COMMAND ${CMAKE_COMMAND} -DGALLERY=$<TARGET_FILE:drs_gallery>
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/gallery_out
                   -DDOC=${PROJECT_SOURCE_DIR}/docs/differentiable-resampling.md
                   -P ${CMAKE_CURRENT_LIST_FILE})
  set_tests_properties(example_gallery PROPERTIES TIMEOUT 60)
endif()
