# bench/ — benchmarks, never part of `make test` (see bench/README.md).  Each bench/<name>.sh is a target
# bench-<name>; `make bench` lists them; `make bench-NAME BENCH_ARGS=--quick` passes arguments.
BENCH_SCRIPTS := $(wildcard bench/*.sh)
.PHONY: bench $(BENCH_SCRIPTS:bench/%.sh=bench-%)
bench:
	@echo "benchmarks (make bench-NAME; see bench/README.md):"
	@for s in $(BENCH_SCRIPTS); do n=$${s#bench/}; echo "  bench-$${n%.sh}"; done
$(BENCH_SCRIPTS:bench/%.sh=bench-%): bench-%: all
	$(Q)BUILD=$(BUILD) JAVA=$(JAVA) JDK25=$(JDK25) bash bench/$*.sh $(BENCH_ARGS)
