# SPDX-License-Identifier: MIT
# runner.sh - the interleaving JVM runner shared by the bench/*.sh scripts (sourced, not executed).
#
# Method (design.md §7): the variants of one configuration run interleaved (A B C A B C …), one fresh JVM per
# run; every run records wall time and process CPU time (user+sys of the JVM and its children, from
# /usr/bin/time) and the 1-minute load average; a run whose CPU/wall ratio falls below BENCH_FLAG_RATIO is
# flagged (another process probably took the core).  The per-iteration timing CSV the java-sut program writes
# (`--timings`) is reduced at once to n/mean/variance (bench/lib/reduce.c) and deleted unless KEEP_RAW=1.
# Build artefacts are copied into the result directory first, so a rebuild by someone else during a long
# benchmark cannot change what is measured.
#
# API (call in this order):
#   bench_init NAME                 result dir $BENCH_DIR = bench/results/NAME-<date>; snapshot; machine info
#   bench_variant NAME ARGS [ENV]   add a variant: ARGS are JVM options (word-split; @OUT@ is replaced by the
#                                   run's scratch directory), ENV is "K=V …" for the JVM's environment.
#                                   If a function bench_count_<NAME up to its first -> exists it is called after
#                                   the run as `fn OUTDIR` and prints "COUNT_NAME COUNT" (records, samples);
#                                   its non-zero exit (nothing to count) marks the run failed.
#   bench_config WORKLOAD PARAM DROP PROGRAM ARGS…   one configuration (one java-sut invocation)
#   bench_run VMS                   run every configuration × variant VMS times, interleaved
# Env knobs: JAVA (java), PIN (CPU list for taskset; default: the last 2 CPUs when there are ≥ 4, otherwise
# none — with 2 CPUs the JIT and GC threads would otherwise compete with the program), BENCH_FLAG_RATIO (0.8),
# KEEP_RAW (0), BENCH_RESULTS (bench/results), BENCH_JVM_OPTS (options every variant gets, e.g. the heap),
# BENCH_CP (class path entries after java-sut.jar, e.g. a database driver fetched from Maven).

BENCH_ROOT=${BENCH_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${BUILD:-$BENCH_ROOT/build}
JAVA=${JAVA:-java}
BENCH_FLAG_RATIO=${BENCH_FLAG_RATIO:-0.8}
KEEP_RAW=${KEEP_RAW:-0}

declare -a BENCH_VARIANTS=() BENCH_CONFIGS=()
declare -A BENCH_VARGS=() BENCH_VENV=()

# bench_args "$@" - the command line every bench script takes: --quick (sets quick=1), -h/--help (prints the
# script's header comment from its third line to the first line that is not a comment), nothing else.
bench_args() {
	BENCH_COMMAND="$0 $*"
	quick=0
	for a in "$@"; do
		case $a in
		--quick) quick=1 ;;
		-h | --help) sed -n '3,/^[^#]/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
		*) echo "$(basename "$0"): unknown argument '$a' (try --help)" >&2; exit 2 ;;
		esac
	done
}

bench_die() {
	echo "bench: $*" >&2
	exit 1
}

bench_init() {
	local name=$1 ncpu
	BENCH_DIR=${BENCH_RESULTS:-$BENCH_ROOT/bench/results}/$name-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$BENCH_DIR/bin" "$BENCH_DIR/runs" || bench_die "cannot create $BENCH_DIR"
	for f in libemp.so emp-analyze java-sut.jar; do
		[[ -f $BUILD/$f ]] || bench_die "$BUILD/$f is missing (run make first)"
		cp "$BUILD/$f" "$BENCH_DIR/bin/$f"
	done
	EMP_LIB=$BENCH_DIR/bin/libemp.so
	EMP_ANALYZE=$BENCH_DIR/bin/emp-analyze
	SUT_JAR=$BENCH_DIR/bin/java-sut.jar
	${CC:-cc} -O2 -std=c11 -o "$BENCH_DIR/bin/reduce" "$BENCH_ROOT/bench/lib/reduce.c" ||
		bench_die "cannot compile bench/lib/reduce.c"
	[[ -x /usr/bin/time ]] || bench_die "/usr/bin/time is missing (apt-get install time)"
	ncpu=$(nproc)
	if [[ -z ${PIN+x} ]]; then
		if ((ncpu >= 4)); then PIN="$((ncpu - 2))-$((ncpu - 1))"; else PIN=""; fi
	fi
	BENCH_PIN=()
	[[ -n $PIN ]] && BENCH_PIN=(taskset -c "$PIN")
	{
		echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "host: $(uname -srm), $ncpu CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'))"
		echo "java: $("$JAVA" -version 2>&1 | head -2 | tr '\n' ' ')"
		echo "emp: $(git -C "$BENCH_ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$BENCH_ROOT" diff --quiet HEAD -- agent probe-writers dump 2>/dev/null || echo ' (+ uncommitted agent changes)')"
		echo "pinning: ${PIN:-none (only $ncpu CPUs)}"
		echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "command: ${BENCH_COMMAND:-?}"
	} >"$BENCH_DIR/machine.txt"
	echo "workload,param,drop,variant,vm,seq,exit,wall_s,user_s,sys_s,cpu_wall,flag,load1,n,mean_ns,var_ns2,rows,count_name,count" \
		>"$BENCH_DIR/manifest.csv"
	echo "bench: results in $BENCH_DIR" >&2
}

bench_variant() {
	BENCH_VARIANTS+=("$1")
	BENCH_VARGS[$1]=$2
	BENCH_VENV[$1]=${3:-}
}

# A configuration is stored as one string: WORKLOAD<TAB>PARAM<TAB>DROP<TAB>PROGRAM ARGS (no tabs in args).
bench_config() {
	local w=$1 p=$2 d=$3
	shift 3
	BENCH_CONFIGS+=("$w"$'\t'"$p"$'\t'"$d"$'\t'"$*")
}

# bench_one CONFIG VARIANT VM SEQ - one JVM run, one manifest row.
bench_one() {
	local cfg=$1 v=$2 vm=$3 seq=$4 w p d prog out args envs rc t wall user sys load red cnt fn
	IFS=$'\t' read -r w p d prog <<<"$cfg"
	out=$BENCH_DIR/runs/$w-$v-vm$vm
	mkdir -p "$out/data"
	args=${BENCH_VARGS[$v]//@OUT@/$out}
	envs=${BENCH_VENV[$v]//@OUT@/$out}
	load=$(cut -d' ' -f1 /proc/loadavg)
	# shellcheck disable=SC2086 # word splitting of the option strings is intended
	env $envs /usr/bin/time -f '%e %U %S' -o "$out/time.txt" "${BENCH_PIN[@]}" \
		"$JAVA" ${BENCH_JVM_OPTS:-} $args -cp "$SUT_JAR${BENCH_CP:+:$BENCH_CP}" $prog --timings "$out/timings.csv" >"$out/stdout.txt" 2>"$out/stderr.txt"
	rc=$?
	read -r wall user sys < <(tail -1 "$out/time.txt")
	red=",,,"
	if ((rc == 0)) && [[ -s $out/timings.csv ]]; then
		red=$("$BENCH_DIR/bin/reduce" --drop "$d" "$out/timings.csv" 2>>"$out/stderr.txt") || red=",,,"
	fi
	cnt=","
	fn=bench_count_${v%%-*}
	local counted=1
	if ((rc == 0)) && declare -F "$fn" >/dev/null; then
		# A variant that records and left nothing to count (a peer that instrumented nothing: Kieker's Byte Buddy
		# on a JDK it does not know) is a failed run, not a cheap one.
		if cnt=$("$fn" "$out" 2>>"$out/stderr.txt"); then
			cnt=${cnt// /,}
		else
			counted=0
			printf '\nbench: %s %s vm %s recorded nothing to count; see %s/stderr.txt\n' "$w" "$v" "$vm" "$out" >&2
		fi
		[[ -n $cnt ]] || cnt=","
	fi
	local ratio flag
	ratio=$(awk -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", (w > 0) ? (u + s) / w : 0 }')
	flag=$(awk -v r="$ratio" -v t="$BENCH_FLAG_RATIO" -v rc="$rc" -v c="$counted" \
		'BEGIN { print (rc != 0 || !c) ? "failed" : (r < t ? "busy" : "") }')
	echo "$w,$p,$d,$v,$vm,$seq,$rc,$wall,$user,$sys,$ratio,$flag,$load,$red,$cnt" >>"$BENCH_DIR/manifest.csv"
	if ((rc != 0)); then
		printf '\nbench: %s %s vm %s exited %s; see %s/stderr.txt\n' "$w" "$v" "$vm" "$rc" "$out" >&2
	fi
	[[ $KEEP_RAW == 1 ]] || rm -rf "$out/timings.csv" "$out/data"
	BENCH_LAST_FLAG=$flag
}

bench_run() {
	local vms=$1 total done=0 start now eta cfg v vm busy=0 failed=0
	total=$((vms * ${#BENCH_CONFIGS[@]} * ${#BENCH_VARIANTS[@]}))
	start=$(date +%s)
	for ((vm = 1; vm <= vms; vm++)); do
		for cfg in "${BENCH_CONFIGS[@]}"; do
			for v in "${BENCH_VARIANTS[@]}"; do
				now=$(date +%s)
				eta=$((done > 0 ? (now - start) * (total - done) / done : 0))
				printf '\r\033[Kbench [%d/%d] vm %d/%d %s %s  (elapsed %ds, eta %ds, busy %d, failed %d)' \
					$((done + 1)) "$total" "$vm" "$vms" "${cfg%%$'\t'*}" "$v" $((now - start)) "$eta" \
					"$busy" "$failed" >&2
				bench_one "$cfg" "$v" "$vm" "$done"
				[[ $BENCH_LAST_FLAG == busy ]] && busy=$((busy + 1))
				[[ $BENCH_LAST_FLAG == failed ]] && failed=$((failed + 1))
				done=$((done + 1))
			done
		done
	done
	printf '\r\033[Kbench: %d runs in %ds (%d flagged busy, %d failed)\n' "$total" $(($(date +%s) - start)) \
		"$busy" "$failed" >&2
	echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$BENCH_DIR/machine.txt"
}

# bench_moobench_slopes TITLE - MooBench at every depth of $DEPTHS ($CALLS top-level calls per JVM) for every
# variant, $VMS rounds, then report.md (and stdout): the slope of the time per top-level call over depth per
# variant (stats.py slope) and the machine facts.
bench_moobench_slopes() {
	local d
	for d in $DEPTHS; do
		bench_config "moobench-d$d" "$d" 0.5 emp.sut.MooBench --calls "$CALLS" --depth "$d"
	done
	bench_run "$VMS"
	{
		echo "## $1 ($(date -u +%Y-%m-%d), $(sed -n 's/^java: //p' "$BENCH_DIR/machine.txt"))"
		echo
		echo "Slope of the time per top-level call (second half of $CALLS calls per JVM) over depths $DEPTHS."
		echo
		python3 "$BENCH_ROOT/bench/lib/stats.py" slope --calls "$CALLS" "$BENCH_DIR/manifest.csv"
		echo
		sed 's/^/    /' "$BENCH_DIR/machine.txt"
	} | tee "$BENCH_DIR/report.md"
}

# JFR settings enabling only jdk.ExecutionSample at PERIOD (e.g. "10 ms"); prints the file's path.
bench_jfr_settings() {
	local period=$1 f
	f=$BENCH_DIR/bin/jfr-sample-${period// /}.jfc
	cat >"$f" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0" label="emp-bench" description="jdk.ExecutionSample only" provider="emp bench">
  <event name="jdk.ExecutionSample">
    <setting name="enabled">true</setting>
    <setting name="period">$period</setting>
  </event>
</configuration>
EOF
	printf '%s\n' "$f"
}

# bench_kieker_aj_usable JAR: whether Kieker's AspectJ agent JAR can weave on $JAVA.  Kieker 2.0.2's weaver cannot
# read Temurin 25's class files ("Unsupported class file major version 69"): it then weaves nothing and the
# application's requests fail.  Prints the reason on stdout when it cannot.
bench_kieker_aj_usable() {
	if "$JAVA" -javaagent:"$1" -version 2>&1 | grep -q "Unsupported class file"; then
		echo "the AspectJ weaver of $(basename "$1") cannot read the class files of $("$JAVA" -version 2>&1 | head -1)"
		return 1
	fi
}
