# agent/ and probe-writers/ — everything linked into libemp.so.
# Only Agent_OnLoad/Agent_OnAttach/Agent_OnUnload are exported (agent/exports.map, -fvisibility=hidden).
AGENT_SRC := $(wildcard agent/*.c) $(wildcard probe-writers/*.c)
# Extra objects (e.g. embedded Java helper classes) are appended by agent/*.mk fragments.
AGENT_EXTRA_OBJ :=
-include $(filter-out agent/module.mk,$(wildcard agent/*.mk))
AGENT_OBJ := $(AGENT_SRC:%.c=$(BUILD)/pic/%.o) $(DUMP_SRC:%.c=$(BUILD)/pic/%.o) $(AGENT_EXTRA_OBJ)
AGENT_LIBS := -llz4 -lunwind -lpthread -ldl -lrt -lm

$(BUILD)/libemp.so: $(AGENT_OBJ) agent/exports.map
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) -shared $(LDFLAGS) -Wl,--version-script=agent/exports.map -Wl,-z,defs -Wl,--exclude-libs,ALL \
		-o $@ $(AGENT_OBJ) $(AGENT_LIBS)
