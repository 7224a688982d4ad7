# tests/states.mk - build/test/dump-states (tests/tools/dump_states.c): the thread states in a dump, per thread,
# which tests/integration/sample_profile.sh checks clock=wall by.  Included by tests/module.mk.
$(BUILD)/test/dump-states: tests/tools/dump_states.c $(DUMP_SRC) $(wildcard dump/*.h) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(CPPFLAGS) $(INC_dump) $(CFLAGS) -o $@ tests/tools/dump_states.c $(DUMP_SRC) $(LDFLAGS) -llz4

TEST_DEPS += $(BUILD)/test/dump-states
