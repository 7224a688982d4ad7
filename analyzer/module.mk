# analyzer/ — emp-analyze.  analyzer/main.c holds main(); everything else is also linked into the unit tests.
ANALYZER_SRC := $(wildcard analyzer/*.c)
ANALYZER_OBJ := $(ANALYZER_SRC:%.c=$(BUILD)/obj/%.o) $(DUMP_SRC:%.c=$(BUILD)/obj/%.o)
ANALYZER_LIBS := -llz4 -lm

$(BUILD)/emp-analyze: $(ANALYZER_OBJ)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $(ANALYZER_OBJ) $(ANALYZER_LIBS)
