# java-sut/ — the Java systems under test, packed into $(BUILD)/java-sut.jar (plain Java, no dependencies).
# Sources: java-sut/src/emp/sut/*.java plus the CallTree shapes emp.sut.tree.D<d> that java-sut/gen/gen-calltree.sh
# generates under $(BUILD)/java-sut/gen (never committed).  Class files are --release 11, so the jar runs on JDK 17
# and JDK 25 alike.  The jar is rebuilt when any source, the generator or this fragment changes.

SUT_SRC     := $(shell find java-sut/src -name '*.java' 2>/dev/null)
SUT_OUT     := $(BUILD)/java-sut
SUT_GEN_DIR := $(SUT_OUT)/gen
# Must match CallTree.minDepth()..maxDepth() (CallTree.runIteration calls each D<d>.root() directly).
SUT_DEPTHS  := 2 3 4 5 6 7 8 9 10
SUT_GEN     := $(foreach d,$(SUT_DEPTHS),$(SUT_GEN_DIR)/emp/sut/tree/D$(d).java)
SUT_JAVACFLAGS ?= --release 11 -g -encoding UTF-8 -Xlint:all

$(SUT_GEN_DIR)/emp/sut/tree/D%.java: java-sut/gen/gen-calltree.sh
	$(if $(Q),@echo "  GEN     $@")
	$(Q)bash java-sut/gen/gen-calltree.sh $* $@

# Compile everything in one javac run into a fresh directory (no stale classes of deleted sources), then jar it.
$(BUILD)/java-sut.jar: $(SUT_SRC) $(SUT_GEN) java-sut/module.mk
	$(if $(Q),@echo "  JAVAC   $@")
	$(Q)rm -rf $(SUT_OUT)/classes && mkdir -p $(SUT_OUT)/classes
	$(Q)$(JAVAC) $(SUT_JAVACFLAGS) -d $(SUT_OUT)/classes $(SUT_SRC) $(SUT_GEN)
	$(Q)$(JAR) --create --file $@.tmp -C $(SUT_OUT)/classes .
	$(Q)mv $@.tmp $@

.PHONY: java-sut
java-sut: $(BUILD)/java-sut.jar
