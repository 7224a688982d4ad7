# tests/exports.mk - check-exports: `emp-analyze export --kieker/--chrome` against what the real tools make of them
# (tests/tools/check-exports.sh).  Downloads Kieker 2.0.2's analysis jar and its logging jars from Maven Central into
# ~/.cache/emp-exports, so it is not part of make test.  KIEKER_TRACE_ANALYSIS_SRC=<kieker 2.0.2
# tools/trace-analysis/src> also runs Kieker's trace-analysis front end itself.
.PHONY: check-exports
check-exports: all
	$(Q)BUILD=$(BUILD) JAVA=$(JAVA) JDK25=$(JDK25) bash tests/tools/check-exports.sh
