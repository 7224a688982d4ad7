# agent/trace/probe.mk — the probe helper class emp/Probe in two flavours, embedded in libemp.so as C arrays
# (agent/trace/probe_class.c), from which agent/trace/tracer.c defines one in the bootstrap loader:
#   agent/trace/java/jni/emp/Probe.java  static natives bound with RegisterNatives; javac --release 8 (every JDK)
#   agent/trace/java/ffm/emp/Probe.java  critical foreign-function downcalls; javac --release 22 with the JDK of $(JDK25)
#                                  (when that JDK is missing the flavour is empty and the agent uses JNI everywhere)
# The generated headers live in $(BUILD)/gen/agent; agent/trace/probe_class.c is compiled by the generic rules (pic for
# libemp.so, plain for the unit tests) with that directory on its include path.
PROBE_GEN := $(BUILD)/gen/agent
PROBE_FFM_JAVAC := $(wildcard $(JDK25)/bin/javac)

$(PROBE_GEN)/jni/emp/Probe.class: agent/trace/java/jni/emp/Probe.java agent/trace/probe.mk
	$(if $(Q),@echo "  JAVAC   $@")
	$(Q)mkdir -p $(PROBE_GEN)/jni
	$(Q)$(JAVAC) --release 8 -Xlint:-options -d $(PROBE_GEN)/jni $<

$(PROBE_GEN)/ffm/emp/Probe.class: agent/trace/java/ffm/emp/Probe.java agent/trace/probe.mk
	$(if $(Q),@echo "  JAVAC   $@")
	$(Q)mkdir -p $(PROBE_GEN)/ffm
	$(Q)$(if $(PROBE_FFM_JAVAC),$(PROBE_FFM_JAVAC) --release 22 -d $(PROBE_GEN)/ffm $<,: > $@)

$(PROBE_GEN)/probe_%.inc: $(PROBE_GEN)/%/emp/Probe.class
	$(if $(Q),@echo "  GEN     $@")
	$(Q)od -An -v -tx1 $< | awk '{ for (i = 1; i <= NF; i++) printf "0x%s,", $$i; print "" }' > $@.tmp
	$(Q)mv $@.tmp $@

$(BUILD)/pic/agent/trace/probe_class.o $(BUILD)/obj/agent/trace/probe_class.o: $(PROBE_GEN)/probe_jni.inc $(PROBE_GEN)/probe_ffm.inc
$(BUILD)/pic/agent/trace/probe_class.o $(BUILD)/obj/agent/trace/probe_class.o: CPPFLAGS += -I$(PROBE_GEN)
