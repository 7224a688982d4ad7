# tests/stats.mk - what tests/integration/stats_oracle.sh needs: the driver that compares analyzer/stats.c with
# scipy's values (tests/stats/oracle.py).  Included by tests/module.mk.
STATS_CHECK := $(BUILD)/tests/stats_oracle_check

$(STATS_CHECK): tests/tools/stats_oracle_check.c analyzer/stats.c analyzer/stats.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ tests/tools/stats_oracle_check.c analyzer/stats.c $(LDFLAGS) -lm

TEST_DEPS += $(STATS_CHECK)
