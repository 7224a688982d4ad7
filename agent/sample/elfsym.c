/* SPDX-License-Identifier: MIT */
/* elfsym.c - function symbols from an ELF file's .symtab; see elfsym.h.
 *
 * The file is read with pread (never mapped: a library replaced on disk while the JVM runs must not turn into a
 * SIGBUS on the writer thread), every header and offset is checked against the file's size, and whatever does
 * not add up makes the load fail rather than produce a wrong name. */
#include "elfsym.h"

#include <elf.h>
#include <fcntl.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct func {
	uint64_t start;
	uint32_t size;
	uint32_t name; /* offset in strtab */
	uint32_t rank; /* among aliases of one start, the higher names it (alias_rank) */
};

struct emp_elfsym {
	struct func *funcs; /* sorted by start */
	size_t n;
	char *strtab;
	size_t strtab_len;
};

static void *read_at(int fd, uint64_t off, uint64_t len, uint64_t file_size)
{
	if (off > file_size || len > file_size - off || len > (1ull << 31))
		return NULL;
	char *p = malloc(len ? len : 1);
	if (!p)
		return NULL;
	for (uint64_t done = 0; done < len;) {
		ssize_t r = pread(fd, p + done, len - done, (off_t)(off + done));
		if (r <= 0) {
			free(p);
			return NULL;
		}
		done += (uint64_t)r;
	}
	return p;
}

/* By start, and among aliases of one start the one that names them last. */
static int by_start(const void *a, const void *b)
{
	const struct func *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* How well @name (binding @bind) names its function among its aliases: global before weak before local (glibc's
 * __GI___clone3 is a local alias of clone3), then fewer leading underscores. */
static uint32_t alias_rank(unsigned bind, const char *name)
{
	uint32_t r = bind == STB_GLOBAL ? 2u : bind == STB_WEAK ? 1u : 0u, u = 0;
	while (name[u] == '_' && u < 15)
		u++;
	return r << 4 | (15u - u);
}

/* Sized functions of a symbol table section @symtab whose names are in @strtab (@strtab_len bytes). */
static size_t collect(struct func *out, const Elf64_Sym *syms, size_t nsyms, const char *strtab, size_t strtab_len)
{
	size_t n = 0;
	for (size_t i = 0; i < nsyms; i++) {
		const Elf64_Sym *s = &syms[i];
		unsigned type = ELF64_ST_TYPE(s->st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF || !s->st_value ||
		    !s->st_size || s->st_size > UINT32_MAX || s->st_name >= strtab_len)
			continue;
		out[n++] = (struct func){ s->st_value, (uint32_t)s->st_size, s->st_name,
					  alias_rank(ELF64_ST_BIND(s->st_info), strtab + s->st_name) };
	}
	return n;
}

/* The path of the separate debug file of the object whose section headers are @sh (@n of them): @debug_dir
 * /.build-id/xx/yyyy.debug after its GNU build-id note (how Debian's -dbg packages and debuginfod lay them out).
 * Return: 0 with @out set, -1 when the object has no build-id. */
static int debug_file(int fd, const Elf64_Shdr *sh, unsigned n, uint64_t size, const char *debug_dir, char *out,
		      size_t len)
{
	for (unsigned i = 0; i < n; i++) {
		if (sh[i].sh_type != SHT_NOTE || sh[i].sh_size > 4096)
			continue;
		uint8_t *note = read_at(fd, sh[i].sh_offset, sh[i].sh_size, size);
		if (!note)
			continue;
		for (uint64_t at = 0; at + sizeof(Elf64_Nhdr) <= sh[i].sh_size;) {
			Elf64_Nhdr nh;
			memcpy(&nh, note + at, sizeof(nh));
			uint64_t name = at + sizeof(nh), desc = name + ((nh.n_namesz + 3ull) & ~3ull);
			uint64_t next = desc + ((nh.n_descsz + 3ull) & ~3ull);
			if (next > sh[i].sh_size)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(note + name, "GNU", 4) &&
			    nh.n_descsz >= 2 && nh.n_descsz <= 64) {
				int w = snprintf(out, len, "%s/.build-id/%02x/", debug_dir, note[desc]);
				for (uint32_t k = 1; k < nh.n_descsz && w > 0 && (size_t)w < len; k++)
					w += snprintf(out + w, len - (size_t)w, "%02x", note[desc + k]);
				if (w > 0 && (size_t)w < len)
					w += snprintf(out + w, len - (size_t)w, ".debug");
				free(note);
				return w > 0 && (size_t)w < len ? 0 : -1;
			}
			at = next;
		}
		free(note);
	}
	return -1;
}

struct emp_elfsym *emp_elfsym_load(const char *path)
{
	return emp_elfsym_load_in(path, "/usr/lib/debug");
}

struct emp_elfsym *emp_elfsym_load_in(const char *path, const char *debug_dir)
{
	struct emp_elfsym *t = NULL;
	Elf64_Shdr *sh = NULL;
	Elf64_Sym *syms = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	Elf64_Ehdr eh;
	if (fstat(fd, &st) || pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shnum)
		goto out;
	uint64_t size = (uint64_t)st.st_size;
	if (!(sh = read_at(fd, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(*sh), size)))
		goto out;
	const Elf64_Shdr *symsec = NULL;
	for (unsigned i = 0; i < eh.e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			symsec = &sh[i];
	if (!symsec) {
		/* stripped (Debian's libc.so.6): the .symtab of its separate debug file, when one is installed */
		char dbg[4096];
		if (debug_dir && !debug_file(fd, sh, eh.e_shnum, size, debug_dir, dbg, sizeof(dbg)))
			t = emp_elfsym_load_in(dbg, NULL);
		goto out;
	}
	if (symsec->sh_entsize != sizeof(Elf64_Sym) || symsec->sh_link >= eh.e_shnum ||
	    sh[symsec->sh_link].sh_type != SHT_STRTAB)
		goto out;
	const Elf64_Shdr *strsec = &sh[symsec->sh_link];
	size_t nsyms = symsec->sh_size / sizeof(Elf64_Sym);
	if (!(t = calloc(1, sizeof(*t))) || !(syms = read_at(fd, symsec->sh_offset, symsec->sh_size, size)) ||
	    !(t->strtab = read_at(fd, strsec->sh_offset, strsec->sh_size, size)) ||
	    !(t->funcs = malloc((nsyms ? nsyms : 1) * sizeof(*t->funcs))))
		goto fail;
	t->strtab_len = strsec->sh_size;
	if (!t->strtab_len || t->strtab[t->strtab_len - 1])
		goto fail; /* names must end inside the table */
	t->n = collect(t->funcs, syms, nsyms, t->strtab, t->strtab_len);
	if (!t->n)
		goto fail;
	qsort(t->funcs, t->n, sizeof(*t->funcs), by_start);
	size_t kept = 0; /* one function per start: the alias that names it (the last, by_start) */
	for (size_t i = 0; i < t->n; i++)
		if (i + 1 == t->n || t->funcs[i + 1].start != t->funcs[i].start)
			t->funcs[kept++] = t->funcs[i];
	t->n = kept;
	goto out;
fail:
	emp_elfsym_free(t);
	t = NULL;
out:
	free(syms);
	free(sh);
	close(fd);
	return t;
}

void emp_elfsym_free(struct emp_elfsym *t)
{
	if (!t)
		return;
	free(t->funcs);
	free(t->strtab);
	free(t);
}

const char *emp_elfsym_find(const struct emp_elfsym *t, uint64_t vaddr, uint64_t *start)
{
	/* The last function starting at or below vaddr (one per start: aliases were merged at the load). */
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->funcs[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct func *f = &t->funcs[lo - 1];
	if (vaddr - f->start >= f->size)
		return NULL; /* in a gap between functions: no name rather than a neighbour's */
	*start = f->start;
	return t->strtab + f->name;
}

/* Cut a demangled name before its parameter list: "ns::K<int (*)(A)>::f(int) const [clone .cold]" ->
 * "ns::K<int (*)(A)>::f".  The list is the first '(' outside template brackets that is not part of
 * "(anonymous namespace)" or of "operator()". */
static void drop_parameters(char *d)
{
	int angle = 0;
	for (char *c = d; *c; c++) {
		if (*c == '<')
			angle++;
		else if (*c == '>' && angle > 0)
			angle--;
		else if (*c == '(' && !angle) {
			if (!strncmp(c, "(anonymous namespace)", 21)) {
				c += 20;
				continue;
			}
			if (c - d >= 8 && !strncmp(c - 8, "operator()", 10)) {
				c++;
				continue;
			}
			*c = 0;
			return;
		}
	}
}

/* The length of @name without the suffixes GCC gives the clones it makes of a function (".constprop.0",
 * ".isra.0", ".part.0", ".cold", ".lto_priv.0", ".localalias", ".cold.12", in any sequence): "foo.part.0.isra.0"
 * -> 3.  A C function's clones then add up with it, as the demangler's "[clone ...]" does for C++ names. */
static size_t without_clone_suffix(const char *name)
{
	static const char *const kinds[] = { "constprop", "isra", "part", "cold", "lto_priv", "localalias" };
	size_t end = strlen(name);
	for (;;) {
		size_t e = end;
		while (e > 0 && name[e - 1] >= '0' && name[e - 1] <= '9')
			e--;
		if (e < end && e > 0 && name[e - 1] == '.')
			e--; /* a number: ".0" */
		size_t cut = e;
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && cut == e; k++) {
			size_t n = strlen(kinds[k]);
			if (e > n + 1 && name[e - n - 1] == '.' && !strncmp(name + e - n, kinds[k], n))
				cut = e - n - 1;
		}
		if (cut == e)
			return end; /* no clone kind before the number (or at the end): nothing more to strip */
		end = cut;
	}
}

char *emp_elfsym_demangle(const char *name)
{
	if (name[0] != '_' || name[1] != 'Z') {
		size_t n = without_clone_suffix(name);
		return n < strlen(name) && n > 0 ? strndup(name, n) : NULL;
	}
	/* libiberty's demangler, linked into libemp.so: the process's own __cxa_demangle exists only where libjvm
	 * links libstdc++ (Debian's does, Temurin's does not).  __cxa_demangle's output, less the return type it
	 * prints before a function template's name ("long* thaw<...>"). */
	char *d = cplus_demangle_v3(name, DMGL_PARAMS | DMGL_ANSI | DMGL_RET_DROP);
	if (d)
		drop_parameters(d);
	return d;
}
