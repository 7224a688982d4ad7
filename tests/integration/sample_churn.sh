#!/usr/bin/env bash
# Short-lived threads (emp.sut.Churn) in sample mode, default engine, JDK 17 and 25, shapes spawn (new threads,
# joined) and pool (a new fixed thread pool per round):
#   share: threads that burn 0.3 ms of CPU each, far less than one interval (1 ms and 10 ms): the worker method
#     emp.sut.Churn.work's share of all samples (top, total_pct) is within max(10 points, 4 sigma) of the truth,
#     sigma = sqrt(p (1 - p) / n) the binomial spread of a share p estimated from n independent samples (the
#     samples are many and the machine is noisy: 4 sigma keeps a correct profiler from failing by chance, and
#     above 10 points the profile is wrong whatever the sample count).  Before each thread's timer had a random
#     first expiry such threads were almost never sampled and the share was ≈ 5 % against a truth ≈ 75 %.
#     The truth is Churn's own share_user line (CPU time in work / user CPU time of the process) from a run
#     of the same shape without the agent: the perf engine sees user time only (exclude_kernel, as an
#     unprivileged process must), and the agent's own cost (arming in the kernel, the writer thread) is not the
#     program's.  The same run's own figure is printed beside it.
#   threads: threads that burn 3 intervals each are all sampled (the first sample comes within one interval of
#     CPU time, and a timer expiry that lands in the kernel is followed by another within the burn): the dump has
#     exactly one THREAD entry per worker thread the program started (its threads_started line), and the
#     counters sample_threads_armed >= threads_started, sample_arm_failed = 0.
source "$(dirname "$0")/../lib/common.sh"
cd "$TMP"

jdks=("$JAVA")
have_jdk25 && jdks+=("$JDK25/bin/java")

# value KEY FILE: the number after "KEY " (or "share_user work ") in Churn's output
value() { awk -v k="$1" '$1 == k { print $NF }' "$2"; }

for jdk in "${jdks[@]}"; do
    echo "== $jdk"
    for shape in spawn pool; do
        args=(emp.sut.Churn --rounds 100 --threads 50 --burn-us 300 --shape "$shape")
        "$jdk" -cp "$SUT" "${args[@]}" >pure.out 2>pure.err || fail "$shape pure: exit $? ($(tail -n 3 pure.err))"
        truth=$(value share_user pure.out)
        [ -n "$truth" ] || fail "$shape pure: no share_user line in: $(cat pure.out)"
        for ms in 1 10; do
            run="$shape-${ms}ms"
            "$jdk" -agentpath:"$AGENT"=interval=${ms}ms,out=$run.emp -cp "$SUT" "${args[@]}" >$run.out 2>$run.err ||
                fail "$run: exit $? ($(tail -n 3 $run.err))"
            [ -s $run.err ] && fail "$run: the agent printed on stderr: $(head -n 3 $run.err)"
            expect_eq "$run threads_started" 5000 "$(value threads_started $run.out)"
            "$ANALYZE" top --format=csv $run.emp >$run.csv 2>$run.note || fail "top $run.emp: exit $?"
            samples=$(info_value $run.emp counters samples)
            share=$(awk -F, '$1 == "emp.sut.Churn.work" { print $5 }' $run.csv)
            python3 - "$run" "${share:-0}" "$samples" "$truth" "$(value share_user $run.out)" <<'PY' || fail "$run share"
import math, sys
run, pct, n, truth, same = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
share = pct / 100
sigma = math.sqrt(truth * (1 - truth) / n)
tol = max(0.10, 4 * sigma)
print(f"{run}: emp.sut.Churn.work {100 * share:.1f} % of {n} samples; truth {100 * truth:.1f} % (without the agent; "
      f"{100 * same:.1f} % in this run), |diff| {100 * abs(share - truth):.1f} points, allowed {100 * tol:.1f} "
      f"(sigma {100 * sigma:.2f})")
sys.exit(0 if abs(share - truth) <= tol else 1)
PY
        done

        run="$shape-threads"
        "$jdk" -agentpath:"$AGENT"=interval=1ms,out=$run.emp -cp "$SUT" emp.sut.Churn --rounds 10 --threads 10 \
            --burn-us 3000 --shape "$shape" >$run.out 2>$run.err || fail "$run: exit $? ($(tail -n 3 $run.err))"
        started=$(value threads_started $run.out)
        expect_eq "$run threads_started" 100 "$started"
        prefix=churn-; [ "$shape" = pool ] && prefix=churn-pool-
        entries=$("$ANALYZE" info --format=csv $run.emp | awk -F, -v p="$prefix" '$1 == "threads" && index($5, p) == 1' |
            wc -l)
        expect_eq "$run THREAD entries named $prefix*" "$started" "$entries"
        armed=$(info_value $run.emp counters sample_threads_armed)
        [ "$armed" -ge "$started" ] || fail "$run: sample_threads_armed $armed < threads_started $started"
        expect_eq "$run sample_arm_failed" "" "$(info_value $run.emp counters sample_arm_failed | grep -v '^0$')"
        echo "$run: $entries worker threads in the dump, $started started, $armed armed"
    done
done
echo "ok"
