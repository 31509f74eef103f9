#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The oldest CMake the build supports (cmake_minimum_required in the top-level
# CMakeLists.txt): installs that release from PyPI's `cmake` package into a
# throwaway venv, configures and builds the project with it, and runs the
# packaging tests with its ctest (install_consumer then also builds its
# find_package and add_subdirectory consumers with it); then once more without
# the optional dependencies (BLIS, libpng).  Run by .ci/run;
# needs network access to PyPI.  Usage: bash tools/ci_cmake_min.sh [VERSION]
set -euo pipefail
cd "$(dirname "$0")/.."
ver=${1:-3.22}
dir=build-cmake-min
rm -rf "$dir"
/usr/bin/python3 -m venv "$dir/venv"
"$dir/venv/bin/pip" install -q --disable-pip-version-check "cmake==$ver.*"
cmake_bin=$dir/venv/bin/cmake
"$cmake_bin" --version | sed -n 1p  # (sed reads it all: no SIGPIPE under pipefail)
"$cmake_bin" -S . -B "$dir/b" -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$dir/configure.log"
"$cmake_bin" --build "$dir/b" -j2 > "$dir/build.log"
"$dir/venv/bin/ctest" --test-dir "$dir/b" --output-on-failure -R "^(abi_exports|install_consumer|test_forward|example_demo)$"
echo "cmake $ver: configured, built and tested"

# Without the optional dependencies (BLIS hidden, libpng disabled): the core,
# the CLI, gradcheck and the tests that need neither still build and pass.
"$cmake_bin" -S . -B "$dir/bare" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLIS_INCLUDE_DIR=/nonexistent \
  -DCMAKE_DISABLE_FIND_PACKAGE_PNG=ON > "$dir/bare-configure.log"
grep "dresample:" "$dir/bare-configure.log"
"$cmake_bin" --build "$dir/bare" -j2 > "$dir/bare-build.log"
"$dir/venv/bin/ctest" --test-dir "$dir/bare" --output-on-failure -R "^(abi_exports|test_forward|test_gradcheck|example_demo)$"
echo "cmake $ver without BLIS and libpng: configured, built and tested"
