# agent/trace/probe.mk — the probe helper class emp/Probe in two flavours, and its guarded front emp/Guard, embedded in
# libemp.so as C arrays (agent/trace/probe_class.c), from which agent/trace/tracer.c defines them in the bootstrap loader:
#   agent/trace/java/jni/emp/Probe.java  static natives bound with RegisterNatives; javac --release 8 (every JDK)
#   agent/trace/java/ffm/emp/Probe.java  critical foreign-function downcalls; javac --release 22 with the JDK of $(JDK25)
#                                  (when that JDK is missing the flavour is empty and the agent uses JNI everywhere)
#   agent/trace/java/guard/emp/Guard.java  budget='s switch in front of either flavour; javac --release 8 against a
#                                  stand-in of emp/Probe's signatures (the JNI flavour's source)
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

$(PROBE_GEN)/guard/emp/Guard.class: agent/trace/java/guard/emp/Guard.java agent/trace/java/jni/emp/Probe.java \
		agent/trace/java/guard/jdk/internal/vm/annotation/Stable.java agent/trace/probe.mk
	$(if $(Q),@echo "  JAVAC   $@")
	$(Q)mkdir -p $(PROBE_GEN)/guard
	$(Q)$(JAVAC) --release 8 -Xlint:-options -implicit:none -sourcepath agent/trace/java/jni:agent/trace/java/guard \
		-d $(PROBE_GEN)/guard $<

# A class file as the body of a C array initializer.
PROBE_EMBED = od -An -v -tx1 $< | awk '{ for (i = 1; i <= NF; i++) printf "0x%s,", $$i; print "" }' > $@.tmp && \
	mv $@.tmp $@

$(PROBE_GEN)/probe_%.inc: $(PROBE_GEN)/%/emp/Probe.class
	$(if $(Q),@echo "  GEN     $@")
	$(Q)$(PROBE_EMBED)

$(PROBE_GEN)/guard.inc: $(PROBE_GEN)/guard/emp/Guard.class
	$(if $(Q),@echo "  GEN     $@")
	$(Q)$(PROBE_EMBED)

$(BUILD)/pic/agent/trace/probe_class.o $(BUILD)/obj/agent/trace/probe_class.o: $(PROBE_GEN)/probe_jni.inc $(PROBE_GEN)/probe_ffm.inc \
	$(PROBE_GEN)/guard.inc
$(BUILD)/pic/agent/trace/probe_class.o $(BUILD)/obj/agent/trace/probe_class.o: CPPFLAGS += -I$(PROBE_GEN)
