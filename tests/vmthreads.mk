# tests/vmthreads.mk - build/test/jni-attach: a JVM launcher (JNI invocation API, libjvm opened at run time, so one
# binary serves JDK 17 and 25) whose native thread is sampled as a JVM thread and then attaches to the JVM;
# tests/integration/sample_vmthreads.sh checks sample mode's take-over rule with it (tests/tools/jni_attach.c).
$(BUILD)/test/jni-attach: tests/tools/jni_attach.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(CPPFLAGS) $(call inc,$<) $(CFLAGS) -o $@ $< -ldl -lpthread

TEST_DEPS += $(BUILD)/test/jni-attach
