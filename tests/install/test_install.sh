#!/usr/bin/env bash
# Installs the built tree into a temporary prefix, then builds a consumer with
# find_package(dresample) and with pkg-config, and runs both.
set -euo pipefail
build=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$src/tests/install" -B "$tmp/b" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/b" >/dev/null
LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib64:${LD_LIBRARY_PATH:-}" "$tmp/b/consumer"
libdir=$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -n1)
flags=$(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs dresample)
cc -std=c11 "$src/tests/install/consumer.c" $flags -o "$tmp/consumer_pc"
LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib64:${LD_LIBRARY_PATH:-}" "$tmp/consumer_pc"
