#!/usr/bin/env bash
# Writes retrograde.pc, the pkg-config file of the C library, for a plain
# `cargo build --release --manifest-path capi/Cargo.toml` (cargo-c's
# `cargo cinstall` writes its own). Usage:
#   tools/retrograde-pc.sh [PREFIX] > retrograde.pc
# PREFIX (default: this repository) holds lib/ or target/release/ with
# libretrograde.so and .a, and include/retrograde.h. With the repository as
# the prefix, `PKG_CONFIG_PATH=$PWD pkg-config --cflags --libs retrograde`
# gives the flags to build against the build tree.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${1:-$repo}"
if [ -d "$prefix/lib" ] && [ ! -d "$prefix/target" ]; then
  libdir='${prefix}/lib'
else
  libdir="${CARGO_TARGET_DIR:-\${prefix\}/target}/release"
fi
version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$repo/capi/Cargo.toml" | head -1)"
# The static library needs what the Rust standard library links on Linux.
cat <<PC
prefix=$prefix
libdir=$libdir
includedir=\${prefix}/include

Name: retrograde
Description: Reader of retrograde game tablebases: probe positions, rank moves
Version: $version
Libs: -L\${libdir} -lretrograde
Libs.private: -lpthread -ldl -lm
Cflags: -I\${includedir}
PC
