#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctest install_consumer: installs the built tree into a temporary prefix,
# moves it elsewhere (the package files must be relocatable), checks what was
# installed, then builds and runs an outside consumer of each library four ways:
#   1. find_package(dresample), shared targets;  2. the same, static targets;
#   3. pkg-config, for each of the three .pc files, against the shared
#      libraries and (--static, the archives alone) against the static ones;
#   4. add_subdirectory() from a host project with its own demo/bench/tests.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR C_COMPILER CMAKE SOVERSION [C_FLAGS]
# (C_FLAGS: the sanitizer flags of a -DDRS_SANITIZE build; the consumers
# need the same runtime as the instrumented libraries).
set -euo pipefail
build=$1; src=$2; cc=$3; cmake=$4; sover=$5; cflags=${6:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "install_consumer: FAIL: $*"; exit 1; }
quiet() { "$@" > "$tmp/log" 2>&1 || { cat "$tmp/log"; fail "$*"; }; }

quiet "$cmake" --install "$build" --prefix "$tmp/stage"
mv "$tmp/stage" "$tmp/prefix"
p=$tmp/prefix
pcdir=$(dirname "$(find "$p" -name dresample.pc | head -n1)")
[ "$pcdir" != . ] || fail "no pkgconfig directory installed"
lib=${pcdir%/pkgconfig}
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# ---- what is installed
for f in "$p/bin/dresample" "$p/include/dresample.h" "$p/include/dresample_autograd.h" \
         "$p/include/dresample_gradcheck.h" "$lib/cmake/dresample/dresampleConfig.cmake"; do
  [ -e "$f" ] || fail "not installed: ${f#$p/}"
done
for l in dresample dresample_autograd dresample_gradcheck; do
  [ -e "$lib/lib$l.a" ] || fail "not installed: lib$l.a"
  [ -e "$pcdir/$l.pc" ] || fail "not installed: $l.pc"
  so=$(readelf -d "$lib/lib$l.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  [ "$so" = "lib$l.so.$sover" ] || fail "lib$l.so: soname '$so', want lib$l.so.$sover"
  [ -e "$lib/$so" ] || fail "no $so link"
done
for l in dresample_autograd dresample_gradcheck; do # the shared layers use the shared core
  readelf -d "$lib/lib$l.so" | grep -F "[libdresample.so.$sover]" >/dev/null ||
    fail "lib$l.so does not link libdresample.so.$sover"
done
"$p/bin/dresample" --help > /dev/null || fail "installed CLI does not run"
# relocatable: no absolute path in the package files (only names of targets)
if grep -nE '(^|[";])/[A-Za-z]' "$lib"/cmake/dresample/*.cmake; then
  fail "absolute paths in the installed CMake package files (above)"
fi
echo "installed: CLI, 3 libraries shared (soname .so.$sover) and static, headers, CMake package, 3 .pc files"

run3() { # runs consumer, consumer_autograd, consumer_gradcheck from $1 (names prefixed $2)
  for c in consumer consumer_autograd consumer_gradcheck; do
    "$1/$2$c" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "$3: $c"; }
  done
}
needs_core() { readelf -d "$1" | grep 'NEEDED.*libdresample\.so' >/dev/null; }  # (no -q: grep reads to the end, so readelf never meets SIGPIPE under pipefail)

# ---- 1, 2: find_package, shared and static
for kind in shared static; do
  quiet "$cmake" -S "$src/tests/install" -B "$tmp/fp_$kind" -DCMAKE_PREFIX_PATH="$p" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" -DDRS_KIND=$kind
  quiet "$cmake" --build "$tmp/fp_$kind"
  run3 "$tmp/fp_$kind" "" "find_package $kind"
  for c in consumer consumer_autograd consumer_gradcheck; do
    if [ $kind = shared ]; then
      needs_core "$tmp/fp_$kind/$c" || fail "find_package shared: $c does not use libdresample.so"
    else
      ! needs_core "$tmp/fp_$kind/$c" || fail "find_package static: $c needs libdresample.so"
    fi
  done
  echo "find_package $kind: 3 consumers built and ran"
done

# 0.x: the package accepts only the same MAJOR.MINOR (SameMinorVersion)
if [ "${sover%%.*}" = 0 ]; then
  minor=${sover#0.}
  for want in 0.$((minor + 1)) $([ "$minor" -gt 0 ] && echo 0.$((minor - 1))); do
    if "$cmake" -S "$src/tests/install" -B "$tmp/v$want" -DCMAKE_PREFIX_PATH="$p" \
         -DCMAKE_C_COMPILER="$cc" -DDRS_WANT_VERSION=$want > /dev/null 2>&1; then
      fail "find_package(dresample $want) accepted version $sover"
    fi
    echo "find_package(dresample $want): refused"
  done
fi

# ---- 3: pkg-config
if command -v pkg-config > /dev/null; then
  mkdir -p "$tmp/archives" "$tmp/pc"
  cp "$lib"/*.a "$tmp/archives/"
  for kind in shared static; do
    for l in dresample dresample_autograd dresample_gradcheck; do
      c=consumer${l#dresample}
      if [ $kind = shared ]; then
        flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs $l)
      else # the archives alone on the -L path: the link needs every Libs.private
        flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --static --define-variable=libdir="$tmp/archives" \
                --cflags --libs $l)
      fi
      # shellcheck disable=SC2086
      quiet "$cc" $cflags -std=c11 "$src/tests/install/$c.c" $flags -o "$tmp/pc/${kind}_$c"
    done
    run3 "$tmp/pc" "${kind}_" "pkg-config $kind"
  done
  ! needs_core "$tmp/pc/static_consumer_autograd" || fail "pkg-config --static: links libdresample.so"
  # the installed shared layers find the core next to them by their own run path, with
  # nothing else telling the loader where it is (an executable's DT_RUNPATH does not
  # reach a library's own needs)
  for l in dresample_autograd dresample_gradcheck; do
    out=$(env -u LD_LIBRARY_PATH ldd "$lib/lib$l.so" 2>&1 || true)
    case "$out" in
      *"libdresample.so.$sover => $lib/libdresample.so.$sover"*) ;;
      *) echo "$out"; fail "lib$l.so does not find libdresample.so.$sover next to it" ;;
    esac
  done
  # the README's two recipes, run without LD_LIBRARY_PATH: a run path to libdir, and
  # the archives named by path with what Libs.private lists
  c=consumer_autograd
  ld=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir dresample_autograd)
  # shellcheck disable=SC2046
  quiet "$cc" $cflags -std=c11 "$src/tests/install/$c.c" \
    $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs dresample_autograd) -Wl,-rpath,"$ld" \
    -o "$tmp/pc/rpath_$c"
  # shellcheck disable=SC2046
  quiet "$cc" $cflags -std=c11 "$src/tests/install/$c.c" \
    $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags dresample_autograd) \
    "$ld/libdresample_autograd.a" "$ld/libdresample.a" \
    $(PKG_CONFIG_PATH="$pcdir" pkg-config --static --libs dresample_autograd |
      tr ' ' '\n' | grep -v -e '^-ldresample') -o "$tmp/pc/archives_$c"
  for e in rpath archives; do
    env -u LD_LIBRARY_PATH "$tmp/pc/${e}_$c" > "$tmp/out" 2>&1 ||
      { cat "$tmp/out"; fail "pkg-config, the README's $e recipe: $c"; }
  done
  ! needs_core "$tmp/pc/archives_$c" || fail "the archives recipe links libdresample.so"
  echo "pkg-config: dresample, dresample_autograd, dresample_gradcheck, shared and --static: built and ran"
  echo "pkg-config: the README's run-path and archive recipes ran without LD_LIBRARY_PATH"
else
  echo "pkg-config: not installed, skipped"
fi

# ---- 4: add_subdirectory from a host with its own demo, bench and tests targets
quiet "$cmake" -S "$src/tests/install/host" -B "$tmp/host" -DDRS_SOURCE_DIR="$src" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" -DCMAKE_BUILD_TYPE=Release
quiet "$cmake" --build "$tmp/host" -j2 --target tests
for c in demo bench host_gradcheck; do
  "$tmp/host/$c" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "add_subdirectory: $c"; }
done
[ ! -e "$tmp/host/dresample/dresample" ] || fail "add_subdirectory built the CLI"
echo "add_subdirectory: host demo, bench, host_gradcheck built and ran"
echo "install_consumer: all passed"
