# dump/ — the dump format, one module used by the agent's writers and by the analyzer alike.  The bottom layer:
# it includes nothing of the project's.
DUMP_SRC := $(wildcard dump/*.c)
INC_dump := -Idump
