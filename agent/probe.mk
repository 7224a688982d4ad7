# agent/probe.mk — the probe helper class emp/Probe (agent/java/emp/Probe.java), compiled with javac --release 8
# and embedded in libemp.so as a C array (emp_probe_class, agent/probe_class.c), from which agent/tracer.c defines
# it in the bootstrap loader.  The generated header lives in $(BUILD)/gen/agent; agent/probe_class.c is compiled
# by the generic rules (pic for libemp.so, plain for the unit tests) with that directory on its include path.
PROBE_GEN := $(BUILD)/gen/agent
$(PROBE_GEN)/emp/Probe.class: agent/java/emp/Probe.java agent/probe.mk
	$(if $(Q),@echo "  JAVAC   $@")
	$(Q)mkdir -p $(PROBE_GEN)
	$(Q)$(JAVAC) --release 8 -Xlint:-options -d $(PROBE_GEN) agent/java/emp/Probe.java

$(PROBE_GEN)/probe_class.inc: $(PROBE_GEN)/emp/Probe.class
	$(if $(Q),@echo "  GEN     $@")
	$(Q)od -An -v -tx1 $< | awk '{ for (i = 1; i <= NF; i++) printf "0x%s,", $$i; print "" }' > $@.tmp
	$(Q)mv $@.tmp $@

$(BUILD)/pic/agent/probe_class.o $(BUILD)/obj/agent/probe_class.o: $(PROBE_GEN)/probe_class.inc
$(BUILD)/pic/agent/probe_class.o $(BUILD)/obj/agent/probe_class.o: CPPFLAGS += -I$(PROBE_GEN)
