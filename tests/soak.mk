# `make soak` — sample mode at interval=1ms over emp.sut.Soak (GC-heavy, class loading, exceptions, thread churn)
# on JDK 17 and 25 for SOAK_SECONDS each (default 600): no crash, a complete dump, counters printed.
# Not part of `make test`.
SOAK_SECONDS ?= 600
.PHONY: soak
soak: all
	$(Q)BUILD=$(BUILD) JAVA=$(JAVA) JDK25=$(JDK25) SOAK_SECONDS=$(SOAK_SECONDS) bash tests/soak/sample-soak.sh
