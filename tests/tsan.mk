# tests/tsan.mk - build/test/concurrency (tests/tsan/concurrency.c): the writer, the rings and the thread hand-over
# driven by real threads with exact counts.  tests/integration/concurrency.sh runs it in make test; `make tsan`
# builds it (and the analyzer) under ThreadSanitizer in build-tsan/ and runs it there.
INC_tests/tsan := $(INC_probe-writers)
CONCURRENCY_OBJ := $(BUILD)/obj/tests/tsan/concurrency.o \
	$(patsubst %.c,$(BUILD)/obj/%.o,$(filter agent/core/% probe-writers/%,$(AGENT_SRC)) $(DUMP_SRC))

$(BUILD)/test/concurrency: $(CONCURRENCY_OBJ)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ -llz4 -lpthread -ldl -lrt -lm

TEST_DEPS += $(BUILD)/test/concurrency

.PHONY: tsan
tsan:
	$(Q)$(MAKE) --no-print-directory BUILD=build-tsan SAN=thread OPT=-O1 build-tsan/test/concurrency
	$(Q)TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan/suppressions.txt" build-tsan/test/concurrency
