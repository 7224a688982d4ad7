# tests/rewriter.mk - what tests/integration/rewriter_corpus.sh needs: the offline rewrite tool and the
# Java verification corpus (compiled with --release 17, plus the generated huge-method class and the
# counting probe stub, and the agent's own emp/Guard for the guarded shape).  Included by tests/module.mk.
REWRITE_TOOL := $(BUILD)/tests/emp_rewrite_tool
CORPUS_DIR   := $(BUILD)/java-corpus
CORPUS_STAMP := $(CORPUS_DIR)/.built
CORPUS_SRC   := $(wildcard tests/java-corpus/src/corpus/*.java)

$(REWRITE_TOOL): tests/tools/emp_rewrite_tool.c agent/trace/rewriter.c agent/trace/classfile.c agent/trace/rewriter.h \
		agent/trace/classfile.h agent/core/outcomes.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(CPPFLAGS) $(INC_agent/trace) $(CFLAGS) -o $@ tests/tools/emp_rewrite_tool.c agent/trace/rewriter.c \
		agent/trace/classfile.c $(LDFLAGS)

$(CORPUS_STAMP): $(CORPUS_SRC) tests/java-corpus/gen-huge.sh tests/java-corpus/stub/emp/Probe.java \
		agent/trace/java/guard/emp/Guard.java
	$(if $(Q),@echo "  JAVAC   java-corpus")
	$(Q)rm -rf $(CORPUS_DIR) && mkdir -p $(CORPUS_DIR)
	$(Q)sh tests/java-corpus/gen-huge.sh $(CORPUS_DIR)/gen
	$(Q)$(JAVAC) --release 17 -d $(CORPUS_DIR)/classes $(CORPUS_SRC) $(CORPUS_DIR)/gen/corpus/Huge.java
	$(Q)$(JAVAC) --release 17 -Xlint:-options -implicit:none -sourcepath agent/trace/java/guard -d $(CORPUS_DIR)/stub \
		tests/java-corpus/stub/emp/Probe.java agent/trace/java/guard/emp/Guard.java
	$(Q)touch $@

.PHONY: rewriter-corpus check-rewriter
rewriter-corpus: $(REWRITE_TOOL) $(CORPUS_STAMP)
TEST_DEPS += rewriter-corpus

check-rewriter: rewriter-corpus
	$(Q)BUILD=$(BUILD) JAVA=$(JAVA) JDK25=$(JDK25) bash tests/integration/rewriter_corpus.sh
