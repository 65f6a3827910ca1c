#!/usr/bin/env bash
# Builds the mock Kafka cluster helper (mock-cluster.c) and the librdkafka it
# links against, into build/ beside this script. Idempotent: does nothing when
# the helper is newer than its sources.
#
# librdkafka comes from source: Debian's librdkafka (2.0.2) reports controller
# id 0 in its mock, which kafkajs cannot use (DESIGN.md section 6). The npm
# package @confluentinc/kafka-javascript ships librdkafka 2.x's source under
# deps/librdkafka; `npm pack` fetches it through the npm registry (and cache)
# without installing it or running its install scripts. Needs gcc, make and
# patch.
#
# librdkafka-mock.patch (beside this script) changes the mock's retention and
# fetch answers; its hash is part of the library's directory and cache names,
# so a changed patch builds the library again.
set -euo pipefail

# The package version pins the librdkafka version (1.10.1 ships librdkafka 2.15.1).
KAFKA_JAVASCRIPT_VERSION=1.10.1

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/build"
patch_file="$here/librdkafka-mock.patch"
patch_id="$(sha256sum "$patch_file" | cut -c1-12)"
lib_name="librdkafka-$KAFKA_JAVASCRIPT_VERSION-$patch_id"
libdir="$out/$lib_name"
bin="$out/mock-cluster"
# The built library is also kept outside the work tree, so that a fresh clone
# on the same machine (CI's) copies it instead of building it again.
cache="${MOCK_KAFKA_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/logsearch-mock-kafka}/$lib_name"
lib_files=(librdkafka.so.1 rdkafka.h rdkafka_mock.h LICENSE)

up_to_date() {
  [[ -x "$bin" && -s "$libdir/librdkafka.so.1" && "$bin" -nt "$here/mock-cluster.c" && "$bin" -nt "$here/build.sh" &&
    "$bin" -nt "$patch_file" ]]
}

if up_to_date; then
  echo "mock-kafka: $bin is up to date"
  exit 0
fi

mkdir -p "$out"
# Two builds at once (a test run and CI, say) take turns.
exec 9>"$out/.lock"
flock 9
if up_to_date; then
  echo "mock-kafka: $bin is up to date"
  exit 0
fi

echo "mock-kafka: building the mock Kafka cluster the Kafka tests run against (test/helpers/mock-kafka; 1-3 minutes the first time, cached afterwards)"
for tool in gcc make npm tar patch sha256sum; do
  command -v "$tool" >/dev/null || { echo "mock-kafka: $tool is required" >&2; exit 1; }
done

start=$SECONDS
has_lib() {
  local f
  for f in "${lib_files[@]}"; do [[ -s "$1/$f" ]] || return 1; done
}
if ! has_lib "$libdir" && has_lib "$cache"; then
  echo "mock-kafka: librdkafka from $cache"
  rm -rf "$out"/librdkafka-* && mkdir "$libdir.tmp"
  for f in "${lib_files[@]}"; do cp "$cache/$f" "$libdir.tmp/"; done
  mv "$libdir.tmp" "$libdir"
fi
if ! has_lib "$libdir"; then
  work="$(mktemp -d "$out/tmp.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  echo "mock-kafka: fetching @confluentinc/kafka-javascript@$KAFKA_JAVASCRIPT_VERSION for librdkafka's source"
  tarball="$(cd "$work" && npm pack --silent --ignore-scripts "@confluentinc/kafka-javascript@$KAFKA_JAVASCRIPT_VERSION" | tail -n 1)"
  tar -xzf "$work/$tarball" -C "$work" package/deps/librdkafka
  src="$work/package/deps/librdkafka"
  patch -p1 -d "$src" --forward --silent <"$patch_file" || { echo "mock-kafka: $patch_file does not apply" >&2; exit 1; }
  echo "mock-kafka: building librdkafka (about a minute)"
  (
    cd "$src"
    ./configure --disable-ssl --disable-gssapi --disable-zstd --disable-lz4-ext --disable-curl --no-download >"$work/configure.log" 2>&1 ||
      { tail -n 30 "$work/configure.log" >&2; exit 1; }
    make -j"$(nproc)" -C src librdkafka.so.1 >"$work/make.log" 2>&1 ||
      { tail -n 30 "$work/make.log" >&2; exit 1; }
  )
  # Only the library and the two headers are kept; the rename makes a
  # half-finished build never look finished.
  mkdir "$work/lib"
  cp "$src/src/librdkafka.so.1" "$src/src/rdkafka.h" "$src/src/rdkafka_mock.h" "$src/LICENSE" "$work/lib/"
  rm -rf "$out"/librdkafka-*
  mv "$work/lib" "$libdir"
fi
# Best effort: a cache that cannot be written only costs the next clone a build.
if ! has_lib "$cache" && mkdir -p "$(dirname "$cache")" 2>/dev/null && cp -r "$libdir" "$cache.tmp.$$" 2>/dev/null; then
  { rm -rf "$cache" && mv "$cache.tmp.$$" "$cache"; } || rm -rf "$cache.tmp.$$"
fi

echo "mock-kafka: compiling $bin"
gcc -O2 -Wall -Wextra -Werror -std=gnu11 -isystem "$libdir" -o "$bin.tmp" "$here/mock-cluster.c" \
  "$libdir/librdkafka.so.1" -Wl,-rpath,"\$ORIGIN/$lib_name" -lpthread
mv "$bin.tmp" "$bin"
echo "mock-kafka: built in $((SECONDS - start)) s"
