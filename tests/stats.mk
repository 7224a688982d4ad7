# tests/stats.mk - what tests/integration/stats_oracle.sh needs: the driver that compares analyzer/lib/stats.c with
# scipy's values (tests/stats/oracle.py).  Included by tests/module.mk.
STATS_CHECK := $(BUILD)/tests/stats_oracle_check

$(STATS_CHECK): tests/tools/stats_oracle_check.c analyzer/lib/stats.c analyzer/lib/stats.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(CPPFLAGS) $(INC_analyzer/lib) $(CFLAGS) -o $@ tests/tools/stats_oracle_check.c analyzer/lib/stats.c $(LDFLAGS) -lm

TEST_DEPS += $(STATS_CHECK)
