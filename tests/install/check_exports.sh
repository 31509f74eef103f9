#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctest abi_exports: the ABI of each shared library is exactly its public
# header.  For each (library, header) pair, lists the library's defined
# dynamic symbols (nm -D --defined-only) and the functions the header declares
# with DRS_API, and fails on a symbol the header does not declare (an internal
# leaking into the ABI) or a declared function the library does not export.
# Usage: check_exports.sh NM LIB.so HEADER.h [LIB.so HEADER.h ...]
set -euo pipefail
nm=$1; shift
status=0
while [ $# -ge 2 ]; do
  so=$1; header=$2; shift 2
  # DRS_API <return type> name( ... : the identifier right before the first
  # '(', outside comments and preprocessor lines
  declared=$(perl -0777 -pe 's{/\*.*?\*/}{ }gs; s{//[^\n]*}{}g; s{^[ \t]*#[^\n]*}{}gm' "$header" |
             tr '\n' ' ' | grep -o 'DRS_API[^;(]*(' |
             sed -E 's/[[:space:]]*\($//; s/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)$/\1/' | sort -u)
  # the linker's own markers are not ours
  exported=$("$nm" -D --defined-only "$so" | awk '{print $NF}' | sed 's/@.*//' |
             grep -vxE '_init|_fini|_edata|_end|__bss_start' | sort -u)
  extra=$(comm -13 <(echo "$declared") <(echo "$exported"))
  missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
  name=$(basename "$so")
  if [ -n "$extra" ]; then
    echo "$name exports symbols $(basename "$header") does not declare:"; echo "$extra" | sed 's/^/  /'
    status=1
  fi
  if [ -n "$missing" ]; then
    echo "$name does not export functions $(basename "$header") declares:"; echo "$missing" | sed 's/^/  /'
    status=1
  fi
  [ -n "$declared" ] || { echo "no DRS_API declaration found in $header"; status=1; }
  echo "$name: $(echo "$exported" | wc -l) exported, $(echo "$declared" | wc -l) declared in $(basename "$header")"
done
exit $status
