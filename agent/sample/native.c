/* SPDX-License-Identifier: MIT */
/* native.c - native frames of a sample: unwinding in the signal handler with libunwind, naming on the
 * writer thread with dladdr.
 *
 * Unwinding.  unw_init_local2(UNW_INIT_SIGNAL_FRAME) starts from the interrupted context the kernel gave the
 * handler; unw_step follows DWARF CFI.  libunwind documents unw_init_local/unw_step/unw_get_reg/unw_get_proc_info as
 * async-signal-safe for local unwinding (UNW_LOCAL_ONLY; its caches are taken with signals blocked; the object
 * lookup goes through dl_iterate_phdr, whose loader lock is recursive, so a sample of a thread inside dlopen does
 * not deadlock on itself).  The walk goes on while the PC lies in the text of a loaded ELF object (libjvm, libc,
 * JNI libraries) and stops at the first PC outside, which is the JVM's code cache (interpreter, stubs, JIT code):
 * exactly where the Java frames that AGCT reports begin.  (libunwind itself cannot tell: on x86-64 it "finds"
 * procedure info for code-cache PCs and follows frame pointers through them.)
 *
 * The table of object text ranges is built off the signal path (emp_native_refresh(): at VMInit, then from the
 * writer thread whenever dl_iterate_phdr reports objects added or removed) and published with one pointer store.
 *   (P) store_release(&ranges, new table) pairs with (Q) load_acquire in the handler.
 * A replaced table is kept, never freed, because a handler may still be reading it; tables are small (16 bytes
 * per object) and replaced only when a library is loaded or unloaded.
 *
 * Naming.  dladdr gives the object and the nearest dynamic symbol below the PC, which names the PC only when the PC
 * lies inside it (its st_size, from dladdr1); otherwise the object's full symbol table names it (elfsym.h:
 * libjvm.so exports ~250 of its ~48,000 functions).  C++ names are demangled.  The symbol id is cached per
 * function (start address, or the PC itself when nothing names it: then the name is the offset in the object,
 * "0x...").
 */
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <time.h>
#include <ucontext.h>
#include <libunwind.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "elfsym.h"
#include "idcache.h"
#include "sampler.h"
#include "symbols.h"

struct range {
	uint64_t lo, hi; /* [lo, hi) executable segment of an ELF object */
};
struct range_table {
	size_t n;
	struct range r[];
};
static _Atomic(struct range_table *) ranges;
/* The builder's state.  emp_native_refresh() runs on the VMInit thread and on the writer thread (its decoder), which
 * is already running by then: refresh_lock serializes them.  Never taken in a signal handler. */
static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;
static struct range_table **retired;
static size_t nretired;
static unsigned long long seen_adds, seen_subs;
/* Relaxed: a hint read without the lock by the writer's per-sample call, so that it takes the lock at most every
 * 100 ms; stored under the lock.  A stale value costs one extra locked check, never a missed one. */
static _Atomic uint64_t last_check_ns;
/* collect()'s argument: the table being filled and its capacity; n counts every segment, also beyond cap. */
struct collecting {
	struct range_table *t;
	size_t cap;
};

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct collecting *c = arg;
	struct range_table *t = c->t;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (t->n < c->cap) {
			t->r[t->n].lo = info->dlpi_addr + ph->p_vaddr;
			t->r[t->n].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		}
		t->n++;
	}
	seen_adds = info->dlpi_adds;
	seen_subs = info->dlpi_subs;
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int probe_counts(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	unsigned long long *c = arg;
	c[0] = info->dlpi_adds;
	c[1] = info->dlpi_subs;
	return 1; /* the counters are the same in every entry: the first is enough */
}

/* A table of every executable segment loaded now, sized to fit (a dlopen between the count and the fill makes
 * it retry).  Return: the table, or NULL when out of memory. */
static struct range_table *build_table(void)
{
	size_t cap = 64;
	for (;;) {
		struct range_table *t = malloc(sizeof(*t) + cap * sizeof(t->r[0]));
		if (!t)
			return NULL;
		t->n = 0;
		struct collecting c = { .t = t, .cap = cap };
		dl_iterate_phdr(collect, &c);
		if (t->n <= cap)
			return t;
		cap = t->n + 64;
		free(t);
	}
}

void emp_native_refresh(int force)
{
	uint64_t now = emp_clock_ns(CLOCK_MONOTONIC);
	if (!force && now - atomic_load_explicit(&last_check_ns, memory_order_relaxed) < 100000000u)
		return;
	pthread_mutex_lock(&refresh_lock);
	if (!force && now - atomic_load_explicit(&last_check_ns, memory_order_relaxed) < 100000000u)
		goto out;
	atomic_store_explicit(&last_check_ns, now, memory_order_relaxed);
	unsigned long long c[2] = { 0, 0 };
	dl_iterate_phdr(probe_counts, c);
	if (!force && atomic_load_explicit(&ranges, memory_order_relaxed) && c[0] == seen_adds && c[1] == seen_subs)
		goto out;
	struct range_table **r = realloc(retired, (nretired + 1) * sizeof(*r));
	if (!r)
		goto out; /* the old table stays: native frames of new objects end the walk early */
	retired = r;
	struct range_table *t = build_table();
	if (!t)
		goto out;
	qsort(t->r, t->n, sizeof(t->r[0]), cmp_range);
	/* Relaxed: only builders store `ranges`, and they are serialized by refresh_lock. */
	struct range_table *old = atomic_load_explicit(&ranges, memory_order_relaxed);
	if (old)
		retired[nretired++] = old;
	/* (P) release: the table's contents before its pointer; pairs with (Q). */
	atomic_store_explicit(&ranges, t, memory_order_release);
out:
	pthread_mutex_unlock(&refresh_lock);
}

/* Async-signal-safe: a binary search over an immutable table. */
static int in_object(const struct range_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (pc < t->r[mid].lo)
			hi = mid;
		else if (pc >= t->r[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

unsigned emp_native_unwind(void *ucontext, uint64_t *pcs, unsigned max)
{
	unw_cursor_t c;
	unw_word_t ip;
	unsigned n = 0;
	/* (Q) acquire; pairs with (P) in emp_native_refresh(). */
	const struct range_table *t = atomic_load_explicit(&ranges, memory_order_acquire);
	if (!t || !ucontext)
		return 0;
	const ucontext_t *uc = ucontext;
	if (!in_object(t, (uint64_t)uc->uc_mcontext.gregs[REG_RIP]))
		return 0; /* in the code cache: no native frames, and no libunwind cost */
	if (unw_init_local2(&c, (unw_context_t *)ucontext, UNW_INIT_SIGNAL_FRAME) < 0)
		return 0;
	while (n < max) {
		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || !ip || !in_object(t, (uint64_t)ip))
			break;
		pcs[n++] = (uint64_t)ip;
		if (unw_step(&c) <= 0)
			break;
	}
	return n;
}

int emp_native_to_jit(void *ucontext, uint64_t *pc, uint64_t *sp, uint64_t *fp)
{
	unw_cursor_t c;
	unw_word_t ip, rsp, rbp;
	/* (Q) acquire; pairs with (P) in emp_native_refresh(). */
	const struct range_table *t = atomic_load_explicit(&ranges, memory_order_acquire);
	if (!t || !ucontext || unw_init_local2(&c, (unw_context_t *)ucontext, UNW_INIT_SIGNAL_FRAME) < 0)
		return -1;
	for (unsigned n = 0; n < EMP_SAMPLER_MAX_NATIVE; n++) {
		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || !ip)
			return -1;
		if (!in_object(t, (uint64_t)ip)) {
			if (!n || unw_get_reg(&c, UNW_REG_SP, &rsp) < 0 || unw_get_reg(&c, UNW_X86_64_RBP, &rbp) < 0)
				return -1;
			*pc = (uint64_t)ip;
			*sp = (uint64_t)rsp;
			*fp = (uint64_t)rbp;
			return 0;
		}
		if (unw_step(&c) <= 0)
			return -1;
	}
	return -1;
}

static struct emp_idcache functions; /* writer thread: function start (or PC) -> symbol id */

/* The .symtab of each object met, by path; loaded on first use (elfsym.h), NULL kept when it has none. */
struct object_syms {
	char *path;
	struct emp_elfsym *syms;
};
static struct object_syms *objects;
static size_t nobjects;

static struct emp_elfsym *object_symbols(const char *path)
{
	for (size_t i = 0; i < nobjects; i++)
		if (!strcmp(objects[i].path, path))
			return objects[i].syms;
	struct object_syms *o = realloc(objects, (nobjects + 1) * sizeof(*o));
	char *copy = strdup(path);
	if (!o || !copy) {
		free(copy);
		if (o)
			objects = o;
		return NULL;
	}
	objects = o;
	objects[nobjects].path = copy;
	objects[nobjects].syms = *path == '/' ? emp_elfsym_load(path) : NULL;
	return objects[nobjects++].syms;
}

/* The name of the function containing @pc, and its runtime start in *@key (@pc when not even the start is known).
 * A dynamic symbol counts only when @pc lies inside it (dladdr alone returns the nearest one below, wherever @pc
 * is); then the object's .symtab; then, nameless, the function's start from the unwind tables. */
static const char *function_at(uint64_t pc, const Dl_info *info, const ElfW(Sym) *dsym, const struct link_map *lm,
			       uint64_t *key)
{
	*key = pc;
	uint64_t saddr = (uint64_t)(uintptr_t)info->dli_saddr;
	if (info->dli_sname && saddr && dsym && pc - saddr < dsym->st_size) {
		*key = saddr;
		return info->dli_sname;
	}
	struct emp_elfsym *t = lm && info->dli_fname ? object_symbols(info->dli_fname) : NULL;
	uint64_t start;
	const char *name = t ? emp_elfsym_find(t, pc - (uint64_t)lm->l_addr, &start) : NULL;
	if (name) {
		*key = start + (uint64_t)lm->l_addr;
		return name;
	}
	/* Stripped object (libz, ...): no name, but the unwind tables (.eh_frame) still know where the function
	 * starts, so its samples stay together as one "0x<start offset>" frame. */
	unw_proc_info_t pi;
	if (!unw_get_proc_info_by_ip(unw_local_addr_space, (unw_word_t)pc, &pi, NULL) && pi.start_ip <= pc &&
	    pc < pi.end_ip)
		*key = (uint64_t)pi.start_ip;
	return NULL;
}

int64_t emp_native_symbol(uint64_t pc)
{
	Dl_info info;
	const ElfW(Sym) *dsym = NULL;
	struct link_map *lm = NULL;
	memset(&info, 0, sizeof(info));
	int found = dladdr1((void *)(uintptr_t)pc, &info, (void **)&dsym, RTLD_DL_SYMENT) != 0;
	if (found && !dladdr1((void *)(uintptr_t)pc, &info, (void **)&lm, RTLD_DL_LINKMAP))
		lm = NULL;
	uint64_t key = pc;
	const char *fn = found ? function_at(pc, &info, dsym, lm, &key) : NULL;
	struct emp_idcache_slot *s = emp_idcache_lookup(&functions, key);
	if (!s)
		return -1;
	if (s->key)
		return s->id;
	const char *lib = found && info.dli_fname ? info.dli_fname : "";
	const char *base = strrchr(lib, '/');
	base = base ? base + 1 : lib;
	if (fn) {
		char *demangled = emp_elfsym_demangle(fn);
		s->id = emp_symbols_add_method(EMP_FRAME_NATIVE, 0, base, demangled ? demangled : fn, "");
		free(demangled);
	} else {
		char name[64];
		snprintf(name, sizeof(name), "0x%llx",
			 (unsigned long long)(key - (found ? (uint64_t)(uintptr_t)info.dli_fbase : 0)));
		s->id = emp_symbols_add_method(EMP_FRAME_NATIVE, 0, *base ? base : "[unknown]", name, "");
	}
	if (s->id < 0)
		return -1;
	emp_idcache_insert(&functions, s, key, s->id);
	return s->id;
}
