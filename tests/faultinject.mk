# tests/faultinject.mk - build/test/libemp-faultinject.so: the agent compiled with -DEMP_FAULT_INJECT, whose
# sampler reads an unmapped page inside the AsyncGetCallTrace fault guard every EMP_FAULT_INJECT_EVERY-th call and
# counts test_fault_injected / test_fault_chained (agent/sample/agct.c).  Only tests/integration/sample_faults.sh
# loads it; libemp.so is built without it.  Every agent object is rebuilt here because the define changes the
# counter list (agent/core/counters.h).
FI_DIR := $(BUILD)/test
FI_OBJ := $(patsubst $(BUILD)/pic/%,$(FI_DIR)/pic/%,$(AGENT_OBJ))

$(FI_DIR)/pic/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC [fi] $<")
	$(Q)$(CC) $(CPPFLAGS) $(call inc,$<) -DEMP_FAULT_INJECT $(CFLAGS) -fPIC -fvisibility=hidden -ftls-model=initial-exec -MMD -MP \
		-c $< -o $@

$(FI_DIR)/pic/agent/trace/probe_class.o: $(PROBE_GEN)/probe_jni.inc $(PROBE_GEN)/probe_ffm.inc
$(FI_DIR)/pic/agent/trace/probe_class.o: CPPFLAGS += -I$(PROBE_GEN)

$(FI_DIR)/libemp-faultinject.so: $(FI_OBJ) agent/exports.map
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) -shared $(LDFLAGS) -Wl,--version-script=agent/exports.map -Wl,-z,defs -Wl,--exclude-libs,ALL \
		-o $@ $(FI_OBJ) $(AGENT_LIBS)

TEST_DEPS += $(FI_DIR)/libemp-faultinject.so
