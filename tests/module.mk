# tests/ — unit tests (Criterion, one binary), JVM integration tests (tests/integration/*.sh), fuzzing.
# tests/*.mk fragments add build steps that integration tests need (e.g. tests/rewriter.mk).
# Tests see every layer.
INC_tests/unit := $(INC_agent) $(INC_analyzer/cli) -Irunner $(INC_load)
INC_tests/tools := $(INC_tests/unit)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/obj/%.o)
# Everything but the two programs' main(): the agent's modules are pure enough to link into a test binary.
UNIT_LIB_OBJ := $(filter-out $(BUILD)/obj/analyzer/cli/main.o,$(ANALYZER_OBJ)) $(AGENT_SRC:%.c=$(BUILD)/obj/%.o) \
	$(filter-out $(BUILD)/obj/runner/main.o,$(RUNNER_SRC:%.c=$(BUILD)/obj/%.o)) $(LOAD_LIB_OBJ)
UNIT_LIBS := -lcriterion -l:libiberty.a -llz4 -lunwind -lpthread -ldl -lrt -lm
TEST_DEPS := all $(BUILD)/unit-tests
-include $(filter-out tests/module.mk,$(wildcard tests/*.mk))

$(BUILD)/unit-tests: $(UNIT_OBJ) $(UNIT_LIB_OBJ)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(UNIT_LIBS)

.PHONY: test unit integration asan ubsan fuzz
# The whole suite: unit tests, then every integration script; the last line is "test: N passed, N failed".
test: $(TEST_DEPS)
	$(Q)BUILD=$(BUILD) JAVA=$(JAVA) JDK25=$(JDK25) bash tests/run.sh

unit: $(BUILD)/unit-tests
	$(Q)$(BUILD)/unit-tests

integration: $(TEST_DEPS)
	$(Q)BUILD=$(BUILD) JAVA=$(JAVA) JDK25=$(JDK25) bash tests/run.sh --integration-only

# Sanitizer builds of the analyzer and the unit tests, in their own build directory.  A report fails the target:
# undefined behaviour stops the test (halt_on_error: criterion counts a crash), and a leak, which LeakSanitizer
# reports only as a test's process exits (after criterion counted it passed), goes to a log file that is checked.
asan:
	$(Q)$(MAKE) --no-print-directory BUILD=build-asan SAN=address,undefined OPT=-O1 \
		build-asan/unit-tests build-asan/emp-analyze
	$(Q)rm -f build-asan/sanitizer.*
	$(Q)ASAN_OPTIONS=detect_leaks=1:log_path=$(CURDIR)/build-asan/sanitizer \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 build-asan/unit-tests
	$(Q)if ls build-asan/sanitizer.* >/dev/null 2>&1; then cat build-asan/sanitizer.*; \
		echo "asan: the sanitizer reports above" >&2; exit 1; fi
ubsan:
	$(Q)$(MAKE) --no-print-directory BUILD=build-ubsan SAN=undefined OPT=-O1 build-ubsan/unit-tests
	$(Q)UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 build-ubsan/unit-tests

# libFuzzer, FUZZ_SECONDS long each (default 60), seeded from dumps the unit tests write: the dump reader, then the
# analyzer's trace reading (trace.h against trace_fold.h).  Undefined behaviour stops a run like a crash does.
FUZZ_SECONDS ?= 60
FUZZ_SEED ?= 1
FUZZ_CC := clang -g -O1 -std=c11 -D_GNU_SOURCE -Idump -Itests/fuzz -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined
FUZZ_FOLD_SRC := tests/unit/fold_oracle.c $(addprefix analyzer/lib/,trace.c trace_fold.c cct.c flat.c symtab.c calls.c util.c \
	iterations.c folded.c timings.c runs.c input.c)
$(BUILD)/fuzz-dump-reader: tests/fuzz/fuzz_dump_reader.c tests/fuzz/structured.c $(DUMP_SRC) $(wildcard dump/*.h) \
		tests/fuzz/structured.h | $(DEPS_STAMP)
	$(if $(Q),@echo "  CLANG   $@")
	$(Q)$(FUZZ_CC) -o $@ $(filter %.c,$^) -llz4
$(BUILD)/fuzz-trace-fold: tests/fuzz/fuzz_trace_fold.c tests/fuzz/structured.c $(FUZZ_FOLD_SRC) $(DUMP_SRC) \
		$(wildcard dump/*.h analyzer/lib/*.h) tests/fuzz/structured.h tests/unit/fold_oracle.h | $(DEPS_STAMP)
	$(if $(Q),@echo "  CLANG   $@")
	$(Q)$(FUZZ_CC) -Ianalyzer/lib -Itests/unit -o $@ $(filter %.c,$^) -llz4 -lm -lpthread
fuzz: $(BUILD)/fuzz-dump-reader $(BUILD)/fuzz-trace-fold $(BUILD)/unit-tests
	$(Q)mkdir -p $(BUILD)/fuzz-corpus
	$(Q)EMP_TEST_CORPUS=$(BUILD)/fuzz-corpus $(BUILD)/unit-tests --filter 'dump/*' >/dev/null
	@# -close_fd_mask=2: the targets' stderr is closed (the analyzer's one-line error for each damaged input, tens
	@# of thousands a minute); libFuzzer's own output and the sanitizers' reports, with the stack of a failed
	@# check, still print.  Run a target on a saved crash-* input without it to see the check's message.
	$(Q)for t in dump-reader trace-fold; do \
		echo "fuzz-$$t: $(FUZZ_SECONDS) s"; \
		$(BUILD)/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) -seed=$(FUZZ_SEED) -max_len=65536 -close_fd_mask=2 \
			$(BUILD)/fuzz-corpus || exit 1; \
	done
