# agent/ and probe-writers/ — everything linked into libemp.so, in four layers (each sees only those below it):
#   agent/core       options, log, clock, counters, per-thread state, ring, symbols, the mode interface (modes.h)
#   probe-writers    the writer thread that drains the rings and encodes chunks, the sinks
#   agent/trace      trace mode (bytecode rewriting, probes);  agent/sample  sample mode (signals, stack walks)
#   agent/agent.c    JVMTI entry points: composes the modes and the iteration hooks, so neither mode includes the other
# Only Agent_OnLoad/Agent_OnAttach/Agent_OnUnload are exported (agent/exports.map, -fvisibility=hidden).
INC_agent/core := -Iagent/core $(INC_dump)
INC_probe-writers := -Iprobe-writers $(INC_agent/core)
INC_agent/trace := -Iagent/trace $(INC_probe-writers)
INC_agent/sample := -Iagent/sample $(INC_probe-writers)
INC_agent := -Iagent/trace -Iagent/sample $(INC_probe-writers)

AGENT_SRC := $(wildcard agent/*.c agent/core/*.c agent/trace/*.c agent/sample/*.c probe-writers/*.c)
# Extra objects (e.g. embedded Java helper classes) are appended by agent/*/*.mk fragments.
AGENT_EXTRA_OBJ :=
-include $(wildcard agent/*/*.mk)
AGENT_OBJ := $(AGENT_SRC:%.c=$(BUILD)/pic/%.o) $(DUMP_SRC:%.c=$(BUILD)/pic/%.o) $(AGENT_EXTRA_OBJ)
AGENT_LIBS := -l:libiberty.a -llz4 -lunwind -lpthread -ldl -lrt -lm

$(BUILD)/libemp.so: $(AGENT_OBJ) agent/exports.map
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) -shared $(LDFLAGS) -Wl,--version-script=agent/exports.map -Wl,-z,defs -Wl,--exclude-libs,ALL \
		-o $@ $(AGENT_OBJ) $(AGENT_LIBS)
