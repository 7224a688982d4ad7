# tests/trace.mk - trace mode's long test, outside make test: 10^8 traced calls with the file writer
# (tests/integration/trace_volume.sh at full size; make test runs it with 10^7).
.PHONY: soak-trace
soak-trace: all
	$(Q)TRACE_CALLS=100000000 BUILD=$(BUILD) JAVA=$(JAVA) JDK25=$(JDK25) bash tests/integration/trace_volume.sh
