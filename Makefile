# emp — top-level Makefile.  `make` builds build/libemp.so, build/emp-analyze, build/emp-attach, build/emp-run,
# build/emp-load and build/java-sut.jar.
# `make demo` and `make test` are the two commands of the README's first screen; `make help` lists the rest.
# Each directory contributes a fragment (<dir>/module.mk) so that modules stay in their own folder.
# Output is quiet unless V=1.

.DEFAULT_GOAL := all
SHELL := /bin/bash

BUILD   ?= build
CC      ?= gcc
V       ?= 0
Q       := $(if $(filter 1,$(V)),,@)

# The JDK whose jni.h/jvmti.h we compile against and whose javac builds java-sut (release 11 class files
# run on every JDK here).  The agent itself does not depend on the JDK it was compiled with.
JAVA_HOME ?= $(patsubst %/bin/javac,%,$(realpath $(shell command -v javac)))
JAVAC     ?= $(JAVA_HOME)/bin/javac
JAR       ?= $(JAVA_HOME)/bin/jar
JAVA      ?= $(JAVA_HOME)/bin/java
JDK25     ?= /usr/lib/jvm/temurin-25-jdk-amd64

# Strict warnings everywhere; -Werror in CI (CI=true) or with WERROR=1.
WARN := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wundef \
        -Wcast-align -Wswitch-enum -Wnull-dereference -Wpointer-arith -Wvla
ifneq ($(filter true 1,$(CI) $(WERROR)),)
WARN += -Werror
endif
OPT      ?= -O2
SAN      ?=
SANFLAGS := $(if $(SAN),-fsanitize=$(SAN) -fno-sanitize-recover=all,)
CPPFLAGS := -D_GNU_SOURCE -isystem $(JAVA_HOME)/include -isystem $(JAVA_HOME)/include/linux
CFLAGS   := $(OPT) -g -fno-omit-frame-pointer $(WARN) $(SANFLAGS) $(EXTRA_CFLAGS)
LDFLAGS  := $(SANFLAGS)

EMP_VERSION := 0.1.0
CPPFLAGS += -DEMP_VERSION=\"$(EMP_VERSION)\"

# Stamp written by scripts/deps.sh once every Debian package we build with is present.
DEPS_STAMP := $(BUILD)/.deps-ok
$(DEPS_STAMP): scripts/deps.sh
	$(Q)mkdir -p $(BUILD)
	$(Q)bash scripts/deps.sh
	$(Q)touch $@

.PHONY: all deps clean help
all: $(BUILD)/libemp.so $(BUILD)/emp-analyze $(BUILD)/emp-attach $(BUILD)/emp-run $(BUILD)/emp-load $(BUILD)/java-sut.jar
deps: $(DEPS_STAMP)

# Include paths are per source directory: INC_<dir>, set by the module.mk fragments, names a directory's own
# headers and those of the layers below it and nothing else, so the compiler enforces the layering of README
# "Layout" (agent/sample cannot include a trace-mode header, analyzer/lib cannot include the CLI's).
inc = $(INC_$(patsubst %/,%,$(dir $(1))))

# Generic compile rules: objects land under $(BUILD)/obj (plain) and $(BUILD)/pic (position independent,
# hidden visibility, for libemp.so).  Header dependencies are tracked with -MMD.
$(BUILD)/obj/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(call inc,$<) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/pic/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC [pic] $<")
	$(Q)$(CC) $(CPPFLAGS) $(call inc,$<) $(CFLAGS) -fPIC -fvisibility=hidden -ftls-model=initial-exec -MMD -MP -c $< -o $@

include dump/module.mk
include agent/module.mk
include analyzer/module.mk
include attach/module.mk
include runner/module.mk
include load/module.mk
include java-sut/module.mk
include tests/module.mk
include bench/module.mk

# The first command of the README: profile a workload with known hot spots (60/30/10 % of CPU in three methods)
# and trace a small synthetic call tree, then print what the analyzer makes of both.
DEMO_JAVA ?= $(JAVA)
.PHONY: demo
demo: all
	@echo "== emp sample mode: emp.sut.Hotspots (60/30/10 % of CPU in hot60/hot30/hot10), 1 ms interval, 3 s"
	$(Q)$(DEMO_JAVA) -agentpath:$(CURDIR)/$(BUILD)/libemp.so=mode=sample,interval=1ms,out=$(BUILD)/demo-sample.emp \
		-cp $(BUILD)/java-sut.jar emp.sut.Hotspots --seconds 3
	$(Q)$(BUILD)/emp-analyze top --limit 8 $(BUILD)/demo-sample.emp
	@echo
	@echo "== emp trace mode: emp.sut.CallTree depth 2, every method of emp.sut.tree.* traced, 20 iterations"
	$(Q)$(DEMO_JAVA) -agentpath:$(CURDIR)/$(BUILD)/libemp.so=mode=trace,include=emp.sut.tree.*,out=$(BUILD)/demo-trace.emp \
		-cp $(BUILD)/java-sut.jar emp.sut.CallTree --depth 2 --warmup 0 --iterations 20
	$(Q)$(BUILD)/emp-analyze calls $(BUILD)/demo-trace.emp
	@echo
	@echo "dumps: $(BUILD)/demo-sample.emp $(BUILD)/demo-trace.emp  (try: $(BUILD)/emp-analyze flame $(BUILD)/demo-sample.emp -o flame.svg)"

clean:
	rm -rf $(BUILD) build-*

help:
	@echo "make            build $(BUILD)/libemp.so, $(BUILD)/emp-analyze, $(BUILD)/emp-attach, $(BUILD)/emp-run,"
	@echo "                $(BUILD)/emp-load, $(BUILD)/java-sut.jar"
	@echo "make demo       install what is missing, build, profile a java-sut workload, print the report"
	@echo "make test       the whole test suite (unit + JVM integration); prints 'N passed, N failed'"
	@echo "make asan       unit tests and analyzer under AddressSanitizer + UndefinedBehaviorSanitizer"
	@echo "make tsan       the writer/ring/thread hand-over driver under ThreadSanitizer (tests/tsan/)"
	@echo "make fuzz       fuzz the dump reader with libFuzzer for FUZZ_SECONDS (default 60)"
	@echo "make soak       long sampling soak on JDK 17 and 25 (outside make test)"
	@echo "make bench      benchmarks (see bench/README.md)"
	@echo "make deps       install the Debian packages emp builds with (as root) or print the command"
	@echo "variables: JAVA_HOME=$(JAVA_HOME)  BUILD=$(BUILD)  V=1 (verbose)  WERROR=1"

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
