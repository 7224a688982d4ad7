# dump/ — the dump format, one module used by the agent's writers and by the analyzer alike.
DUMP_SRC := $(wildcard dump/*.c)
