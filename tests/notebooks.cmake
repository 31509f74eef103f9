# SPDX-License-Identifier: MIT
# The teaching notebooks and the documentation's images.
#
# docs_notebooks executes every notebook in docs/notebooks/ top to bottom
# (nbclient, a fresh kernel of the test interpreter), publishes the Markdown
# copies into the build tree and fails when a cell raises or when the files
# it writes are not those of the committed docs/notebooks/rendered/.
# docs_images checks that every image docs/ shows exists, is a PNG made by
# tools/make_doc_plots.py, tools/render_notebooks.py or the gallery example,
# matches its manifest, and that the charts redraw identically.  Both report
# "skipped" (77) when nbclient, matplotlib or the dresample package is missing
# from the interpreter (${DRS_TEST_PY}: the repository's venv when it exists).
add_test(NAME docs_notebooks
         COMMAND ${DRS_TEST_PY} ${CMAKE_SOURCE_DIR}/tools/render_notebooks.py
                 --out ${CMAKE_CURRENT_BINARY_DIR}/notebooks_rendered
                 --expect ${CMAKE_SOURCE_DIR}/docs/notebooks/rendered/manifest.json)
set_tests_properties(docs_notebooks PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
add_test(NAME docs_images COMMAND ${DRS_TEST_PY} ${CMAKE_SOURCE_DIR}/tests/test_docs_images.py)
set_tests_properties(docs_images PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
