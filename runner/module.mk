# runner/ — emp-run, the experiment runner (EMP protocol, local or Slurm executor).  It shares the analyzer's
# allocation/error helpers and seeded PRNG (analyzer/lib util, stats) and nothing else.
INC_runner := -Irunner -Ianalyzer/lib
RUNNER_SRC := $(wildcard runner/*.c)
RUNNER_OBJ := $(RUNNER_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/analyzer/lib/util.o $(BUILD)/obj/analyzer/lib/stats.o

$(BUILD)/emp-run: $(RUNNER_OBJ)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $(RUNNER_OBJ) -lm
