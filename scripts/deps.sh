#!/usr/bin/env bash
# Checks that the Debian packages emp builds and tests with are installed.  As root it installs the missing ones
# with apt-get; otherwise it prints the exact command to run and fails.
#
#   libunwind-dev      native stack unwinding in the sampler
#   liburcu-dev        wait-free queues for ring/symbol hand-off (header-only use, _LGPL_SOURCE)
#   liblz4-dev         LZ4 frames in the dump
#   libcriterion-dev   the unit-test framework
#   clang, libclang-rt-14-dev  libFuzzer for `make fuzz`
#   python3-scipy      the independent oracle the statistics tests compare against (run with /usr/bin/python3)
#   librsvg2-bin       rsvg-convert: the unit tests render every SVG picture (test_svgfit.c)
#   openjdk-17-jdk-headless    javac/jni.h (normally present already)
set -u
pkgs=(libunwind-dev liburcu-dev libiberty-dev liblz4-dev libcriterion-dev clang libclang-rt-14-dev pkg-config python3-scipy librsvg2-bin)
if ! command -v javac >/dev/null 2>&1; then
    pkgs+=(openjdk-17-jdk-headless)
fi
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "emp: missing packages: ${missing[*]}" >&2
    echo "emp: run: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
echo "emp: installing ${missing[*]} with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || { echo "emp: apt-get update failed" >&2; exit 1; }
apt-get install -y -qq "${missing[@]}" >/dev/null || { echo "emp: apt-get install ${missing[*]} failed" >&2; exit 1; }
