#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fetch-peers.sh - fetch the peer agents emp is benchmarked against from Maven Central into a cache outside
# the repository (never committed), and print the paths as shell assignments.
#
# Usage: bench/lib/fetch-peers.sh [asprof|kieker|kieker-aspectj|otel]...      (default: asprof kieker otel)
# Env:   EMP_BENCH_CACHE (default ~/.cache/emp-bench), MAVEN_REPO (default Maven Central),
#        ASPROF_VERSION (4.5), KIEKER_VERSION (2.0.2), OTEL_VERSION (2.33.1)
# Output (stdout): ASPROF_LIB=…  KIEKER_JAR=… (the ByteBuddy agent)  KIEKER_AJ_JAR=… (the AspectJ agent)
#   OTEL_JAR=…  (one per line, for eval)
# A peer that cannot be fetched: one line on stderr, nothing printed for it, exit status 1.
set -euo pipefail

CACHE=${EMP_BENCH_CACHE:-$HOME/.cache/emp-bench}
ASPROF_VERSION=${ASPROF_VERSION:-4.5}
KIEKER_VERSION=${KIEKER_VERSION:-2.0.2}
OTEL_VERSION=${OTEL_VERSION:-2.33.1}
mkdir -p "$CACHE"

# shellcheck source=../../scripts/maven.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/maven.sh"
get() { maven_get "$CACHE" "$@"; }

status=0
peers=("$@")
[[ ${#peers[@]} -gt 0 ]] || peers=(asprof kieker otel)
for p in "${peers[@]}"; do
	case $p in
	asprof)
		# The linux-x64 classifier jar carries linux-x64/libasyncProfiler.so; extract it once.
		if jar=$(get tools/profiler async-profiler "$ASPROF_VERSION" linux-x64); then
			dir="$CACHE/async-profiler-$ASPROF_VERSION"
			if [[ ! -s $dir/libasyncProfiler.so ]]; then
				mkdir -p "$dir"
				unzip -p "$jar" linux-x64/libasyncProfiler.so >"$dir/libasyncProfiler.so.part"
				mv "$dir/libasyncProfiler.so.part" "$dir/libasyncProfiler.so"
			fi
			echo "ASPROF_LIB=$dir/libasyncProfiler.so"
			echo "ASPROF_VERSION=$ASPROF_VERSION"
		else
			echo "fetch-peers: cannot fetch async-profiler $ASPROF_VERSION (linux-x64)" >&2
			status=1
		fi ;;
	kieker | kieker-aspectj) # its ByteBuddy agent (KIEKER_JAR) or its AspectJ agent (KIEKER_AJ_JAR)
		if [[ $p == kieker ]]; then classifier=bytebuddy var=KIEKER_JAR; else classifier=aspectj var=KIEKER_AJ_JAR; fi
		if jar=$(get net/kieker-monitoring kieker "$KIEKER_VERSION" "$classifier"); then
			echo "$var=$jar"
			echo "KIEKER_VERSION=$KIEKER_VERSION"
		else
			echo "fetch-peers: cannot fetch kieker $KIEKER_VERSION ($classifier)" >&2
			status=1
		fi ;;
	otel)
		if jar=$(get io/opentelemetry/javaagent opentelemetry-javaagent "$OTEL_VERSION" ""); then
			echo "OTEL_JAR=$jar"
			echo "OTEL_VERSION=$OTEL_VERSION"
		else
			echo "fetch-peers: cannot fetch opentelemetry-javaagent $OTEL_VERSION" >&2
			status=1
		fi ;;
	*) echo "fetch-peers: unknown peer '$p' (asprof, kieker, kieker-aspectj, otel)" >&2; exit 2 ;;
	esac
done
exit $status
