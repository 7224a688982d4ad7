# load/ — emp-load, the open-loop HTTP load generator (issue 12).  A product tool in its own folder, not under
# bench/: it is what a user runs against their server, bench/latency.sh and tests/integration/latency.sh only use
# it.  It sees its own headers and analyzer/lib (for the histogram, hdr.h, which emp-analyze latency shares).
INC_load := -Iload -Ianalyzer/lib
LOAD_SRC := $(wildcard load/*.c)
# Everything but main() is also linked into the unit tests.
LOAD_LIB_OBJ := $(filter-out $(BUILD)/obj/load/main.o,$(LOAD_SRC:%.c=$(BUILD)/obj/%.o))

$(BUILD)/emp-load: $(LOAD_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/analyzer/lib/hdr.o
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ -lm
