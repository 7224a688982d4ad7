# analyzer/ — emp-analyze, in three layers (each sees only those below it, and dump/):
#   analyzer/lib     reading and aggregating: input, symtab, cct, trace, calls, flat, profile, iterations, stats,
#                    compare (verdicts), exactness, timings, folded
#   analyzer/render  output formats: output (text/csv/json tables), flame (SVG), diffflame (compare on a flame
#                    graph), heatmap (SVG), kieker and chrome
#                    (export's file formats)
#   analyzer/cli     main(), option parsing and one cmd_<command>.c per command: options -> library -> report
# analyzer/cli/main.c holds main(); everything else is also linked into the unit tests.
INC_analyzer/lib := -Ianalyzer/lib $(INC_dump)
INC_analyzer/render := -Ianalyzer/render $(INC_analyzer/lib)
INC_analyzer/cli := -Ianalyzer/cli $(INC_analyzer/render)

ANALYZER_SRC := $(wildcard analyzer/lib/*.c analyzer/render/*.c analyzer/cli/*.c)
ANALYZER_OBJ := $(ANALYZER_SRC:%.c=$(BUILD)/obj/%.o) $(DUMP_SRC:%.c=$(BUILD)/obj/%.o)
ANALYZER_LIBS := -llz4 -lm

$(BUILD)/emp-analyze: $(ANALYZER_OBJ)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $(ANALYZER_OBJ) $(ANALYZER_LIBS)
