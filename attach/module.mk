# attach/ — emp-attach: loads libemp.so into a running JVM through the HotSpot attach protocol (no JDK tools, no
# jattach package: the protocol is a file, a signal and one request on a unix socket).  It checks the options with
# the agent's own parser (agent/core/options.c) before it touches the JVM.
INC_attach := -Iattach $(INC_agent/core)
ATTACH_OBJ := $(BUILD)/obj/attach/emp_attach.o $(BUILD)/obj/agent/core/options.o

$(BUILD)/emp-attach: $(ATTACH_OBJ)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $(ATTACH_OBJ)
