/* SPDX-License-Identifier: MIT */
/* rewriter.c - entry/exit/exitThrow probe insertion (see rewriter.h for the code shape and rules).
 *
 * Per method: decode every instruction (bounds-checked), decode the StackMapTable into explicit
 * frames, lay the new code out (entry header, exit sequences before returns, goto_w widening,
 * trampoline islands, switch padding) until branch offsets are stable, then emit code, exception
 * table, stack maps and remapped debug tables.  Any failure leaves the method untouched.
 * References: JVMS SE 25 sections 4.7.3 (Code), 4.7.4 (StackMapTable), 4.10.1 (type checking);
 * HotSpot's ClassVerifier::verify_invoke_init()/ends_in_athrow() for the constructor handler rule.
 */
#include "rewriter.h"
#include "buf.h"
#include "classfile.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *const reason_str[EMP_REWRITE_NREASONS] = {
	[EMP_REWRITE_OK] = "ok",
#define EMP_REWRITE_X_STR(p, name, counter, str) [EMP_REWRITE_E_##name] = str,
	EMP_REWRITE_REASONS(EMP_REWRITE_X_STR, _)
#undef EMP_REWRITE_X_STR
};

const char *emp_rewrite_reason_str(int reason)
{
	if (reason < 0)
		reason = -reason;
	if (reason >= EMP_REWRITE_NREASONS)
		return "unknown";
	return reason_str[reason];
}

/* Opcodes we treat specially. */
enum {
	OP_ICONST_0 = 0x03, OP_BIPUSH = 0x10, OP_SIPUSH = 0x11, OP_LDC = 0x12, OP_LDC_W = 0x13,
	OP_ILOAD = 0x15, OP_ILOAD_0 = 0x1a, OP_ISTORE = 0x36, OP_ISTORE_0 = 0x3b,
	OP_IFEQ = 0x99, OP_IF_ACMPNE = 0xa6, OP_GOTO = 0xa7, OP_JSR = 0xa8, OP_RET = 0xa9,
	OP_TABLESWITCH = 0xaa, OP_LOOKUPSWITCH = 0xab, OP_IRETURN = 0xac, OP_RETURN = 0xb1,
	OP_INVOKESPECIAL = 0xb7, OP_INVOKESTATIC = 0xb8, OP_NEW = 0xbb, OP_ATHROW = 0xbf, OP_WIDE = 0xc4,
	OP_IFNULL = 0xc6, OP_IFNONNULL = 0xc7, OP_GOTO_W = 0xc8, OP_JSR_W = 0xc9
};

/* Fixed instruction lengths; 0 = variable (switches, wide), -1 = invalid opcode. */
static int op_len(uint8_t op)
{
	if (op <= 0x0f) return 1;
	if (op == 0x10) return 2;
	if (op == 0x11) return 3;
	if (op == 0x12) return 2;
	if (op <= 0x14) return 3;
	if (op <= 0x19) return 2;
	if (op <= 0x35) return 1;
	if (op <= 0x3a) return 2;
	if (op <= 0x83) return 1;
	if (op == 0x84) return 3;
	if (op <= 0x98) return 1;
	if (op <= 0xa8) return 3;
	if (op == 0xa9) return 2;
	if (op <= 0xab) return 0;
	if (op <= 0xb1) return 1;
	if (op <= 0xb8) return 3;
	if (op <= 0xba) return 5;
	if (op == 0xbb) return 3;
	if (op == 0xbc) return 2;
	if (op == 0xbd) return 3;
	if (op <= 0xbf) return 1;
	if (op <= 0xc1) return 3;
	if (op <= 0xc3) return 1;
	if (op == 0xc4) return 0;
	if (op == 0xc5) return 4;
	if (op <= 0xc7) return 3;
	if (op <= 0xc9) return 5;
	return -1;
}

enum { K_PLAIN, K_BR16, K_BR32, K_SWITCH, K_RETURN };

struct insn {
	uint32_t off, len;      /* old offset and length */
	uint8_t op, kind;
	bool uncond;            /* control never falls through to the next instruction */
	bool widened;           /* goto rewritten as goto_w */
	bool cand;              /* an island may be placed just before this instruction */
	int32_t target;         /* branch target (instruction index) */
	int32_t tramp;          /* conditional branch redirected to this trampoline, or -1 */
	uint32_t sw_first, sw_n;/* switch targets in m->swt[sw_first .. +sw_n), default first */
	uint32_t ntramp;        /* trampolines in the island before this instruction */
	/* new layout */
	uint32_t island, prefix, start, nlen;
	uint32_t suffix;        /* constructor: entry probe right after the super()/this() call */
};

struct tramp {
	uint32_t site;   /* island before instruction index `site` (n = end of code) */
	int32_t target;  /* instruction index */
	uint32_t pos;
};

/* A verification type (JVMS 4.7.4); Object types carry their name so that types from the
 * method descriptor (no constant yet, cp == 0) compare equal to types from the table. */
struct vt {
	uint8_t tag;
	uint16_t cp;
	uint32_t off;           /* Uninitialized: old offset of the `new` */
	const uint8_t *name;
	uint16_t nlen;
};
enum { VT_TOP, VT_INT, VT_FLOAT, VT_DOUBLE, VT_LONG, VT_NULL, VT_UTHIS, VT_OBJECT, VT_UNINIT };

struct frm {
	uint32_t nl, ns;
	struct vt *l, *s;
};

/* The StackMapTable being built: dump/buf.h's growable buffer with a sticky out-of-memory flag, so a frame
 * writer can append without checking every byte and build_smt() checks once at the end. */
struct buf {
	struct emp_buf b;
	bool oom;
};

static void buf_u1(struct buf *b, uint8_t v)
{
	if (b->oom || emp_buf_reserve(&b->b, 1)) {
		b->oom = true;
		return;
	}
	b->b.data[b->b.len++] = v;
}

static void buf_u2(struct buf *b, uint16_t v)
{
	if (b->oom || emp_buf_reserve(&b->b, 2)) {
		b->oom = true;
		return;
	}
	emp_cf_put16(b->b.data + b->b.len, v);
	b->b.len += 2;
}

/* Per-class state. */
struct rw_class {
	struct emp_classfile *cf;
	const char *klass, *enter, *exit, *exit_throw;
	bool guarded; /* rewriter.h's guarded shape */
	int mref_enter, mref_exit, mref_throw; /* 0 until first needed */
	const uint8_t *this_name;
	uint16_t this_name_len;
	int smt_name; /* Utf8 "StackMapTable", 0 until needed */
};

/* Per-method state. */
struct meth {
	struct rw_class *rc;
	struct emp_cf_member *mb;
	struct emp_cf_code code;
	int32_t id;
	bool is_ctor;
	uint32_t n;             /* instruction count; ins[n] is the end sentinel */
	struct insn *ins;
	int32_t *at;            /* old offset -> instruction index or -1, code_len+1 entries */
	int32_t *swt;
	uint32_t nswt;
	struct tramp *tr;
	uint32_t ntr, captr;
	int32_t super_idx;      /* constructor: index of the super()/this() invokespecial */
	/* stack maps */
	bool has_smt, want_smt;
	int smt_attr;           /* index in code.attrs or -1 */
	struct frm init;
	struct frm *fr;         /* decoded frames */
	uint32_t nfr;
	int32_t *frame_at;      /* instruction index -> frame index or -1 */
	/* layout */
	uint8_t push[3];
	uint32_t push_len;
	uint8_t load[4], store[4]; /* guarded: iload/istore of the flag local (wide when its index needs it) */
	uint32_t flag_len;         /* their length (equal), 0 when not guarded */
	uint32_t hdr_len;          /* the entry probe at pc 0 (0 for a constructor) */
	uint32_t exit_len;         /* an exit probe; an entry probe is as long (istore F and iload F are) */
	uint32_t thr_len;          /* the handler: an exit probe and athrow */
	uint32_t body_end, h_post, total;
};

static int cf_reason(int cferr)
{
	switch (-cferr) {
	case EMP_CF_E_TRUNCATED: return -EMP_REWRITE_E_TRUNCATED;
	case EMP_CF_E_BAD_MAGIC: return -EMP_REWRITE_E_BAD_MAGIC;
	case EMP_CF_E_BAD_VERSION: return -EMP_REWRITE_E_BAD_VERSION;
	case EMP_CF_E_TOO_MANY: return -EMP_REWRITE_E_CP_FULL;
	case EMP_CF_E_NOMEM: return -EMP_REWRITE_E_NOMEM;
	case EMP_CF_E_BAD_CODE: return -EMP_REWRITE_E_BAD_CODE;
	case EMP_CF_OK: return 0;
	case EMP_CF_E_BAD_CONSTANT: case EMP_CF_E_BAD_INDEX: case EMP_CF_E_TRAILING:
	case EMP_CF_NERRORS: default:
		return -EMP_REWRITE_E_BAD_CLASS;
	}
}

/* Name of the method referenced by a Methodref/InterfaceMethodref, or NULL. */
static const uint8_t *ref_name(const struct emp_classfile *cf, uint16_t idx, uint16_t *len)
{
	uint16_t nt = emp_cf_const_u2(cf, idx, EMP_CP_METHODREF, 2);
	if (!nt)
		nt = emp_cf_const_u2(cf, idx, EMP_CP_IMETHODREF, 2);
	uint16_t name = nt ? emp_cf_const_u2(cf, nt, EMP_CP_NAME_AND_TYPE, 0) : 0;
	return name ? emp_cf_utf8(cf, name, len) : NULL;
}

static int32_t s2(const uint8_t *p) { return (int16_t)emp_cf_be16(p); }
static int32_t s4(const uint8_t *p) { return (int32_t)emp_cf_be32(p); }
static uint32_t pad4(uint32_t off) { return (4 - ((off + 1) & 3)) & 3; }

/* Decode the instruction stream; fills m->ins, m->at, m->swt. */
static int decode(struct meth *m)
{
	const uint8_t *c = m->code.code;
	uint32_t len = m->code.code_len;
	m->at = malloc(((size_t)len + 1) * sizeof(*m->at));
	m->ins = calloc((size_t)len + 1, sizeof(*m->ins));
	if (!m->at || !m->ins)
		return -EMP_REWRITE_E_NOMEM;
	for (uint32_t i = 0; i <= len; i++)
		m->at[i] = -1;
	uint32_t n = 0, nsw = 0;
	for (uint32_t off = 0; off < len;) {
		struct insn *in = &m->ins[n];
		uint8_t op = c[off];
		int l = op_len(op);
		in->off = off;
		in->op = op;
		in->tramp = -1;
		in->target = -1;
		if (l < 0)
			return -EMP_REWRITE_E_BAD_CODE;
		if (op == OP_JSR || op == OP_JSR_W || op == OP_RET)
			return -EMP_REWRITE_E_JSR;
		if (op == OP_WIDE) {
			if (off + 1 >= len)
				return -EMP_REWRITE_E_BAD_CODE;
			uint8_t w = c[off + 1];
			if (w == OP_RET)
				return -EMP_REWRITE_E_JSR;
			if (w == 0x84)
				l = 6;
			else if ((w >= 0x15 && w <= 0x19) || (w >= 0x36 && w <= 0x3a))
				l = 4;
			else
				return -EMP_REWRITE_E_BAD_CODE;
		} else if (op == OP_TABLESWITCH || op == OP_LOOKUPSWITCH) {
			uint64_t b = (uint64_t)off + 1 + pad4(off);
			if (b + 12 > len)
				return -EMP_REWRITE_E_BAD_CODE;
			int64_t cnt;
			if (op == OP_TABLESWITCH) {
				int64_t lo = s4(c + b + 4), hi = s4(c + b + 8);
				if (hi < lo)
					return -EMP_REWRITE_E_BAD_CODE;
				cnt = hi - lo + 1;
				if (b + 12 + (uint64_t)cnt * 4 > len)
					return -EMP_REWRITE_E_BAD_CODE;
				l = (int)(b + 12 + (uint64_t)cnt * 4 - off);
			} else {
				cnt = s4(c + b + 4);
				if (cnt < 0 || b + 8 + (uint64_t)cnt * 8 > len)
					return -EMP_REWRITE_E_BAD_CODE;
				l = (int)(b + 8 + (uint64_t)cnt * 8 - off);
			}
			in->kind = K_SWITCH;
			in->uncond = true;
			in->sw_first = nsw;
			in->sw_n = (uint32_t)cnt + 1;
			nsw += in->sw_n;
		}
		if ((uint64_t)off + (uint64_t)l > len)
			return -EMP_REWRITE_E_BAD_CODE;
		in->len = (uint32_t)l;
		if ((op >= OP_IFEQ && op <= OP_GOTO) || op == OP_IFNULL || op == OP_IFNONNULL)
			in->kind = K_BR16;
		else if (op == OP_GOTO_W)
			in->kind = K_BR32;
		else if (op >= OP_IRETURN && op <= OP_RETURN)
			in->kind = K_RETURN;
		if (op == OP_GOTO || op == OP_GOTO_W || op == OP_ATHROW || in->kind == K_RETURN)
			in->uncond = true;
		m->at[off] = (int32_t)n;
		off += (uint32_t)l;
		n++;
	}
	m->n = n;
	m->ins[n].off = len;
	m->ins[n].tramp = -1;
	m->ins[n].target = -1;
	m->at[len] = (int32_t)n;
	m->nswt = nsw;
	m->swt = malloc(((size_t)nsw + 1) * sizeof(*m->swt));
	if (!m->swt)
		return -EMP_REWRITE_E_NOMEM;
	/* Resolve targets. */
	for (uint32_t i = 0; i < n; i++) {
		struct insn *in = &m->ins[i];
		int64_t t;
		if (in->kind == K_BR16 || in->kind == K_BR32) {
			t = (int64_t)in->off + (in->kind == K_BR16 ? s2(c + in->off + 1) : s4(c + in->off + 1));
			if (t < 0 || t >= len || m->at[t] < 0)
				return -EMP_REWRITE_E_BAD_CODE;
			in->target = m->at[t];
		} else if (in->kind == K_SWITCH) {
			uint32_t b = in->off + 1 + pad4(in->off);
			for (uint32_t k = 0; k < in->sw_n; k++) {
				uint32_t at = k == 0 ? b : in->op == OP_TABLESWITCH ? b + 12 + (k - 1) * 4
										    : b + 8 + (k - 1) * 8 + 4;
				t = (int64_t)in->off + s4(c + at);
				if (t < 0 || t >= len || m->at[t] < 0)
					return -EMP_REWRITE_E_BAD_CODE;
				m->swt[in->sw_first + k] = m->at[t];
			}
		}
	}
	if (!m->ins[n - 1].uncond) /* falling off the end of the code */
		return -EMP_REWRITE_E_BAD_CODE;
	return 0;
}

static int check_exceptions(struct meth *m)
{
	for (uint16_t i = 0; i < m->code.exc_count; i++) {
		const struct emp_cf_exc *e = &m->code.exc[i];
		if (e->start_pc >= e->end_pc || e->end_pc > m->code.code_len || e->handler_pc >= m->code.code_len ||
		    m->at[e->start_pc] < 0 || m->at[e->end_pc] < 0 || m->at[e->handler_pc] < 0)
			return -EMP_REWRITE_E_BAD_CODE;
	}
	return 0;
}

/* Find the constructor's super()/this() call and check that the code before it is a region of its
 * own (see rewriter.h). */
static int ctor_analyse(struct meth *m)
{
	const struct emp_classfile *cf = m->rc->cf;
	uint32_t pending = 0;
	int32_t s = -1;
	for (uint32_t i = 0; i < m->n && s < 0; i++) {
		const struct insn *in = &m->ins[i];
		if (in->op == OP_NEW) {
			pending++;
		} else if (in->op == OP_INVOKESPECIAL) {
			uint16_t len;
			const uint8_t *nm = ref_name(cf, emp_cf_be16(m->code.code + in->off + 1), &len);
			if (!nm)
				return -EMP_REWRITE_E_BAD_CODE;
			if (len == 6 && memcmp(nm, "<init>", 6) == 0) {
				if (pending)
					pending--;
				else
					s = (int32_t)i;
			}
		}
	}
	if (s < 0)
		return -EMP_REWRITE_E_CTOR_SHAPE;
	m->super_idx = s;
	for (uint32_t i = 0; i < m->n; i++) {
		const struct insn *in = &m->ins[i];
		bool pre = (int32_t)i < s;
		if (pre && in->kind == K_RETURN)
			return -EMP_REWRITE_E_CTOR_SHAPE;
		if (in->kind == K_BR16 || in->kind == K_BR32) {
			if ((in->target <= s) != pre && !(pre && in->target == s))
				return -EMP_REWRITE_E_CTOR_SHAPE;
		} else if (in->kind == K_SWITCH) {
			for (uint32_t k = 0; k < in->sw_n; k++) {
				int32_t t = m->swt[in->sw_first + k];
				if ((t <= s) != pre && !(pre && t == s))
					return -EMP_REWRITE_E_CTOR_SHAPE;
			}
		}
	}
	for (uint16_t i = 0; i < m->code.exc_count; i++)
		if (m->at[m->code.exc[i].start_pc] <= s || m->at[m->code.exc[i].handler_pc] <= s)
			return -EMP_REWRITE_E_CTOR_SHAPE;
	return 0;
}

/* --- stack maps --- */

static void frm_free(struct frm *f)
{
	free(f->l);
	free(f->s);
	f->l = f->s = NULL;
}

static bool vt_eq(const struct vt *a, const struct vt *b)
{
	if (a->tag != b->tag)
		return false;
	if (a->tag == VT_OBJECT)
		return a->nlen == b->nlen && memcmp(a->name, b->name, a->nlen) == 0;
	if (a->tag == VT_UNINIT)
		return a->off == b->off;
	return true;
}

/* Initial frame from the method descriptor (JVMS 4.10.1.6). */
static int initial_frame(struct meth *m)
{
	const struct emp_classfile *cf = m->rc->cf;
	uint16_t dlen;
	const uint8_t *d = emp_cf_utf8(cf, m->mb->descriptor_index, &dlen);
	if (!d || dlen < 3 || d[0] != '(')
		return -EMP_REWRITE_E_BAD_CLASS;
	struct vt *l = calloc((size_t)dlen + 1, sizeof(*l));
	if (!l)
		return -EMP_REWRITE_E_NOMEM;
	m->init.l = l;
	uint32_t n = 0;
	if (!(m->mb->access_flags & EMP_ACC_STATIC)) {
		if (m->is_ctor) {
			l[n++].tag = VT_UTHIS;
		} else {
			l[n].tag = VT_OBJECT;
			l[n].name = m->rc->this_name;
			l[n++].nlen = m->rc->this_name_len;
		}
	}
	uint32_t i = 1;
	while (i < dlen && d[i] != ')') {
		uint32_t st = i;
		while (i < dlen && d[i] == '[')
			i++;
		if (i >= dlen)
			return -EMP_REWRITE_E_BAD_CLASS;
		if (d[i] == 'L') {
			while (i < dlen && d[i] != ';')
				i++;
			if (i >= dlen)
				return -EMP_REWRITE_E_BAD_CLASS;
		} else if (!strchr("BCDFIJSZ", d[i]) || d[i] == 0) {
			return -EMP_REWRITE_E_BAD_CLASS;
		}
		i++;
		struct vt *v = &l[n++];
		if (d[st] == '[') {
			v->tag = VT_OBJECT;
			v->name = d + st;
			v->nlen = (uint16_t)(i - st);
		} else if (d[st] == 'L') {
			v->tag = VT_OBJECT;
			v->name = d + st + 1;
			v->nlen = (uint16_t)(i - st - 2);
		} else {
			v->tag = d[st] == 'F' ? VT_FLOAT : d[st] == 'J' ? VT_LONG : d[st] == 'D' ? VT_DOUBLE : VT_INT;
		}
	}
	if (i >= dlen)
		return -EMP_REWRITE_E_BAD_CLASS;
	m->init.nl = n;
	return 0;
}

static int read_vt(struct meth *m, const uint8_t **pp, const uint8_t *end, struct vt *v)
{
	const uint8_t *p = *pp;
	if (p >= end)
		return -EMP_REWRITE_E_BAD_STACKMAP;
	memset(v, 0, sizeof(*v));
	v->tag = *p++;
	if (v->tag > VT_UNINIT)
		return -EMP_REWRITE_E_BAD_STACKMAP;
	if (v->tag == VT_OBJECT || v->tag == VT_UNINIT) {
		if (end - p < 2)
			return -EMP_REWRITE_E_BAD_STACKMAP;
		uint16_t x = emp_cf_be16(p);
		p += 2;
		if (v->tag == VT_OBJECT) {
			v->cp = x;
			v->name = emp_cf_class_name(m->rc->cf, x, &v->nlen);
			if (!v->name)
				return -EMP_REWRITE_E_BAD_STACKMAP;
		} else {
			if (x >= m->code.code_len || m->at[x] < 0 || m->ins[m->at[x]].op != OP_NEW)
				return -EMP_REWRITE_E_BAD_STACKMAP;
			v->off = x;
		}
	}
	*pp = p;
	return 0;
}

static int read_vts(struct meth *m, const uint8_t **pp, const uint8_t *end, uint32_t k, struct vt *out)
{
	for (uint32_t i = 0; i < k; i++) {
		int r = read_vt(m, pp, end, &out[i]);
		if (r)
			return r;
	}
	return 0;
}

static int decode_frames(struct meth *m)
{
	m->frame_at = malloc(((size_t)m->n + 1) * sizeof(*m->frame_at));
	if (!m->frame_at)
		return -EMP_REWRITE_E_NOMEM;
	for (uint32_t i = 0; i <= m->n; i++)
		m->frame_at[i] = -1;
	if (!m->has_smt)
		return 0;
	const struct emp_cf_attr *a = &m->code.attrs[m->smt_attr];
	const uint8_t *p = a->data, *end = a->data + a->len;
	if (a->len < 2)
		return -EMP_REWRITE_E_BAD_STACKMAP;
	uint32_t nf = emp_cf_be16(p);
	p += 2;
	m->fr = calloc(nf ? nf : 1, sizeof(*m->fr));
	if (!m->fr)
		return -EMP_REWRITE_E_NOMEM;
	const struct frm *prev = &m->init;
	int64_t prev_off = -1;
	for (uint32_t k = 0; k < nf; k++) {
		struct frm *f = &m->fr[k];
		m->nfr = k + 1;
		if (p >= end)
			return -EMP_REWRITE_E_BAD_STACKMAP;
		uint8_t t = *p++;
		uint32_t delta, keep = prev->nl, add = 0, nstack = 0;
		bool full = false;
		if (t < 128) {
			delta = t < 64 ? t : t - 64u;
			nstack = t < 64 ? 0 : 1;
		} else if (t < 247) {
			return -EMP_REWRITE_E_BAD_STACKMAP;
		} else {
			if (end - p < 2)
				return -EMP_REWRITE_E_BAD_STACKMAP;
			delta = emp_cf_be16(p);
			p += 2;
			if (t == 247) {
				nstack = 1;
			} else if (t <= 250) {
				if (251u - t > keep)
					return -EMP_REWRITE_E_BAD_STACKMAP;
				keep -= 251u - t;
			} else if (t <= 254) {
				add = t - 251u;
			} else {
				full = true;
			}
		}
		if (full) {
			if (end - p < 2)
				return -EMP_REWRITE_E_BAD_STACKMAP;
			uint32_t nl = emp_cf_be16(p);
			p += 2;
			f->l = calloc(nl ? nl : 1, sizeof(*f->l));
			if (!f->l)
				return -EMP_REWRITE_E_NOMEM;
			f->nl = nl;
			int r = read_vts(m, &p, end, nl, f->l);
			if (r)
				return r;
			if (end - p < 2)
				return -EMP_REWRITE_E_BAD_STACKMAP;
			nstack = emp_cf_be16(p);
			p += 2;
		} else {
			f->nl = keep + add;
			f->l = calloc(f->nl ? f->nl : 1, sizeof(*f->l));
			if (!f->l)
				return -EMP_REWRITE_E_NOMEM;
			if (keep)
				memcpy(f->l, prev->l, keep * sizeof(*f->l));
			int r = read_vts(m, &p, end, add, f->l + keep);
			if (r)
				return r;
		}
		f->ns = nstack;
		f->s = calloc(nstack ? nstack : 1, sizeof(*f->s));
		if (!f->s)
			return -EMP_REWRITE_E_NOMEM;
		int r = read_vts(m, &p, end, nstack, f->s);
		if (r)
			return r;
		int64_t off = prev_off + delta + 1;
		if (off >= m->code.code_len || m->at[off] < 0)
			return -EMP_REWRITE_E_BAD_STACKMAP;
		m->frame_at[m->at[off]] = (int32_t)k;
		prev_off = off;
		prev = f;
	}
	if (p != end)
		return -EMP_REWRITE_E_BAD_STACKMAP;
	return 0;
}

/* Constructor: frames before (and at) the super() call hold uninitializedThis in local 0, frames
 * after it hold no uninitializedThis at all. */
static int ctor_check_frames(struct meth *m)
{
	for (uint32_t i = 0; i < m->n; i++) {
		int32_t k = m->frame_at[i];
		if (k < 0)
			continue;
		const struct frm *f = &m->fr[k];
		if ((int32_t)i <= m->super_idx) {
			if (f->nl == 0 || f->l[0].tag != VT_UTHIS)
				return -EMP_REWRITE_E_CTOR_SHAPE;
		} else {
			for (uint32_t j = 0; j < f->nl; j++)
				if (f->l[j].tag == VT_UTHIS)
					return -EMP_REWRITE_E_CTOR_SHAPE;
			for (uint32_t j = 0; j < f->ns; j++)
				if (f->s[j].tag == VT_UTHIS)
					return -EMP_REWRITE_E_CTOR_SHAPE;
		}
	}
	return 0;
}

static int put_vt(struct meth *m, struct buf *b, const struct vt *v)
{
	buf_u1(b, v->tag);
	if (v->tag == VT_OBJECT) {
		int cp = v->cp;
		if (!cp) {
			cp = emp_cf_add_class(m->rc->cf, (const char *)v->name, v->nlen);
			if (cp < 0)
				return cf_reason(cp);
		}
		buf_u2(b, (uint16_t)cp);
	} else if (v->tag == VT_UNINIT) {
		buf_u2(b, (uint16_t)m->ins[m->at[v->off]].start);
	}
	return 0;
}

static bool vts_eq(const struct vt *a, const struct vt *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (!vt_eq(&a[i], &b[i]))
			return false;
	return true;
}

/* Append frame @f at @delta, encoded as compactly as its relation to @prev allows. */
static int put_frame(struct meth *m, struct buf *b, const struct frm *prev, const struct frm *f, uint32_t delta)
{
	int r = 0;
	bool same_l = f->nl == prev->nl && vts_eq(f->l, prev->l, f->nl);
	if (same_l && f->ns == 0) {
		if (delta < 64) {
			buf_u1(b, (uint8_t)delta);
		} else {
			buf_u1(b, 251);
			buf_u2(b, (uint16_t)delta);
		}
	} else if (same_l && f->ns == 1) {
		if (delta < 64) {
			buf_u1(b, (uint8_t)(64 + delta));
		} else {
			buf_u1(b, 247);
			buf_u2(b, (uint16_t)delta);
		}
		r = put_vt(m, b, &f->s[0]);
	} else if (f->ns == 0 && f->nl < prev->nl && prev->nl - f->nl <= 3 && vts_eq(f->l, prev->l, f->nl)) {
		buf_u1(b, (uint8_t)(251 - (prev->nl - f->nl)));
		buf_u2(b, (uint16_t)delta);
	} else if (f->ns == 0 && f->nl > prev->nl && f->nl - prev->nl <= 3 && vts_eq(f->l, prev->l, prev->nl)) {
		buf_u1(b, (uint8_t)(251 + (f->nl - prev->nl)));
		buf_u2(b, (uint16_t)delta);
		for (uint32_t i = prev->nl; i < f->nl && !r; i++)
			r = put_vt(m, b, &f->l[i]);
	} else {
		buf_u1(b, 255);
		buf_u2(b, (uint16_t)delta);
		buf_u2(b, (uint16_t)f->nl);
		for (uint32_t i = 0; i < f->nl && !r; i++)
			r = put_vt(m, b, &f->l[i]);
		buf_u2(b, (uint16_t)f->ns);
		for (uint32_t i = 0; i < f->ns && !r; i++)
			r = put_vt(m, b, &f->s[i]);
	}
	return r;
}

/* Guarded shape: frame @f, at a point the entry has passed, gets the flag local F = max_locals as an int (the
 * locals it does not list are padded with top up to F).  Return: 0, or <0 when @f lists more than max_locals slots. */
static int add_flag_local(struct meth *m, struct frm *f)
{
	uint32_t slots = 0;
	for (uint32_t j = 0; j < f->nl; j++)
		slots += f->l[j].tag == VT_LONG || f->l[j].tag == VT_DOUBLE ? 2 : 1;
	if (slots > m->code.max_locals)
		return -EMP_REWRITE_E_BAD_STACKMAP;
	uint32_t nl = f->nl + (m->code.max_locals - slots) + 1;
	struct vt *l = realloc(f->l, nl * sizeof(*l));
	if (!l)
		return -EMP_REWRITE_E_NOMEM;
	memset(l + f->nl, 0, (nl - f->nl) * sizeof(*l)); /* VT_TOP */
	l[nl - 1].tag = VT_INT;
	f->l = l;
	f->nl = nl;
	return 0;
}

/* Guarded shape: the flag local in every decoded frame after the entry (a constructor's frames up to its
 * super()/this() call hold no flag: its entry comes after that call). */
static int add_flag_locals(struct meth *m)
{
	for (uint32_t i = 0; i < m->n; i++) {
		int32_t k = m->frame_at[i];
		int r;
		if (k >= 0 && !(m->is_ctor && (int32_t)i <= m->super_idx) && (r = add_flag_local(m, &m->fr[k])))
			return r;
	}
	return 0;
}

/* --- layout --- */

static void layout(struct meth *m)
{
	for (uint32_t i = 0; i <= m->n; i++)
		m->ins[i].ntramp = 0;
	for (uint32_t t = 0; t < m->ntr; t++)
		m->ins[m->tr[t].site].ntramp++;
	uint32_t pos = m->hdr_len;
	for (uint32_t i = 0; i <= m->n; i++) {
		struct insn *in = &m->ins[i];
		in->island = pos;
		pos += 5 * in->ntramp;
		in->prefix = pos;
		in->start = pos;
		if (i == m->n)
			break;
		if (in->kind == K_RETURN)
			in->start = pos += m->exit_len;
		if (in->kind == K_SWITCH)
			in->nlen = 1 + pad4(pos) + (in->len - 1 - pad4(in->off));
		else if (in->widened)
			in->nlen = 5;
		else
			in->nlen = in->len;
		pos += in->nlen;
		if (m->is_ctor && (int32_t)i == m->super_idx) {
			in->suffix = pos;
			pos += m->exit_len; /* the constructor's entry probe */
		}
	}
	m->body_end = pos;
	m->h_post = pos;
	pos += m->thr_len;
	m->total = pos;
	/* Trampoline positions: island order = trampoline index order. */
	for (uint32_t i = 0; i <= m->n; i++)
		m->ins[i].ntramp = 0; /* reused as fill counter */
	for (uint32_t t = 0; t < m->ntr; t++) {
		struct insn *site = &m->ins[m->tr[t].site];
		m->tr[t].pos = site->island + 5 * site->ntramp++;
	}
}

static bool fits16(int64_t d) { return d >= -32768 && d <= 32767; }

/* One pass over 16-bit branches; returns 1 if the layout changed, 0 if stable, <0 on failure. */
static int fix_branches(struct meth *m)
{
	int changed = 0;
	for (uint32_t i = 0; i < m->n; i++) {
		struct insn *in = &m->ins[i];
		if (in->kind != K_BR16 || in->widened)
			continue;
		int64_t tp = in->tramp >= 0 ? m->tr[in->tramp].pos : m->ins[in->target].prefix;
		if (fits16(tp - in->start))
			continue;
		changed = 1;
		if (in->op == OP_GOTO) {
			in->widened = true;
			continue;
		}
		/* Nearest island site, leaving headroom for growth in later passes. */
		int64_t best = -1, bestd = 32767 - 1024;
		for (uint32_t s = 0; s <= m->n; s++) {
			if (!m->ins[s].cand)
				continue;
			int64_t d = (int64_t)m->ins[s].island + 5 * (int64_t)m->ins[s].ntramp - in->start;
			if (d < 0)
				d = -d;
			if (d < bestd) {
				bestd = d;
				best = s;
			}
		}
		if (best < 0)
			return -EMP_REWRITE_E_BRANCH_OVERFLOW;
		if (in->tramp < 0) {
			if (m->ntr == m->captr) {
				uint32_t cap = m->captr ? m->captr * 2 : 16;
				struct tramp *n = realloc(m->tr, cap * sizeof(*n));
				if (!n)
					return -EMP_REWRITE_E_NOMEM;
				m->tr = n;
				m->captr = cap;
			}
			in->tramp = (int32_t)m->ntr++;
			m->tr[in->tramp].target = in->target;
		}
		m->tr[in->tramp].site = (uint32_t)best;
	}
	return changed;
}

static void mark_candidates(struct meth *m)
{
	/* cover[i] > 0: instruction boundary i lies strictly inside an original handler range. */
	int32_t *cover = calloc((size_t)m->n + 2, sizeof(*cover));
	for (uint16_t k = 0; cover && k < m->code.exc_count; k++) {
		cover[m->at[m->code.exc[k].start_pc] + 1]++;
		cover[m->at[m->code.exc[k].end_pc]]--;
	}
	int32_t run = 0;
	for (uint32_t i = 0; i <= m->n; i++) {
		if (cover)
			run += cover[i];
		bool ok = i == m->n || (i > 0 && m->ins[i - 1].uncond && run == 0 && cover);
		if (m->is_ctor && (int32_t)i <= m->super_idx)
			ok = false;
		m->ins[i].cand = ok;
	}
	free(cover);
}

/* --- emission --- */

/* push ID; invokestatic @mref at @p.  Return: the byte after it. */
static uint8_t *emit_call(const struct meth *m, uint8_t *p, int mref)
{
	memcpy(p, m->push, m->push_len);
	p[m->push_len] = OP_INVOKESTATIC;
	emp_cf_put16(p + m->push_len + 1, (uint16_t)mref);
	return p + m->push_len + 3;
}

/* push ID; invokestatic enter; [istore F] */
static void emit_entry(const struct meth *m, uint8_t *p)
{
	memcpy(emit_call(m, p, m->rc->mref_enter), m->store, m->flag_len);
}

/* [iload F]; push ID; invokestatic @mref (exit or exitThrow) */
static void emit_exit(const struct meth *m, uint8_t *p, int mref)
{
	memcpy(p, m->load, m->flag_len);
	emit_call(m, p + m->flag_len, mref);
}

static void emit_code(struct meth *m, uint8_t *out)
{
	const uint8_t *c = m->code.code;
	struct rw_class *rc = m->rc;
	emit_entry(m, out + (m->is_ctor ? m->ins[m->super_idx].suffix : 0));
	for (uint32_t t = 0; t < m->ntr; t++) {
		uint8_t *p = out + m->tr[t].pos;
		p[0] = OP_GOTO_W;
		emp_cf_put32(p + 1, (uint32_t)((int64_t)m->ins[m->tr[t].target].prefix - m->tr[t].pos));
	}
	for (uint32_t i = 0; i < m->n; i++) {
		const struct insn *in = &m->ins[i];
		uint8_t *p = out + in->start;
		if (in->kind == K_RETURN)
			emit_exit(m, out + in->prefix, rc->mref_exit);
		switch (in->kind) {
		case K_BR16: {
			int64_t tp = in->tramp >= 0 ? m->tr[in->tramp].pos : m->ins[in->target].prefix;
			if (in->widened) {
				p[0] = OP_GOTO_W;
				emp_cf_put32(p + 1, (uint32_t)(tp - in->start));
			} else {
				p[0] = in->op;
				emp_cf_put16(p + 1, (uint16_t)(int16_t)(tp - in->start));
			}
			break;
		}
		case K_BR32:
			p[0] = in->op;
			emp_cf_put32(p + 1, (uint32_t)((int64_t)m->ins[in->target].prefix - in->start));
			break;
		case K_SWITCH: {
			uint32_t ob = in->off + 1 + pad4(in->off), nb = 1 + pad4(in->start);
			p[0] = in->op;
			memset(p + 1, 0, nb - 1);
			/* Copy the body, then patch every offset. */
			memcpy(p + nb, c + ob, in->len - (ob - in->off));
			for (uint32_t k = 0; k < in->sw_n; k++) {
				uint32_t at = k == 0 ? 0 : in->op == OP_TABLESWITCH ? 12 + (k - 1) * 4 : 8 + (k - 1) * 8 + 4;
				int64_t d = (int64_t)m->ins[m->swt[in->sw_first + k]].prefix - in->start;
				emp_cf_put32(p + nb + at, (uint32_t)d);
			}
			break;
		}
		case K_PLAIN:
		case K_RETURN:
		default:
			memcpy(p, c + in->off, in->len);
			break;
		}
	}
	emit_exit(m, out + m->h_post, rc->mref_throw);
	out[m->h_post + m->thr_len - 1] = OP_ATHROW;
}

/* Exception table: original entries remapped, then the catch-all pieces. */
static int build_exc(struct meth *m, struct emp_cf_exc **out, uint16_t *count)
{
	size_t cap = (size_t)m->code.exc_count + m->n + 2;
	struct emp_cf_exc *e = calloc(cap, sizeof(*e));
	if (!e)
		return -EMP_REWRITE_E_NOMEM;
	size_t k = 0;
	for (uint16_t i = 0; i < m->code.exc_count; i++, k++) {
		const struct emp_cf_exc *o = &m->code.exc[i];
		e[k].start_pc = (uint16_t)m->ins[m->at[o->start_pc]].prefix;
		e[k].end_pc = (uint16_t)m->ins[m->at[o->end_pc]].island;
		e[k].handler_pc = (uint16_t)m->ins[m->at[o->handler_pc]].prefix;
		e[k].catch_type = o->catch_type;
	}
	for (uint32_t i = 0; i < m->n; i++) {
		const struct insn *in = &m->ins[i];
		if (in->kind == K_RETURN || (m->is_ctor && (int32_t)i <= m->super_idx))
			continue;
		uint16_t h = (uint16_t)m->h_post;
		uint32_t s = in->prefix, end = in->start + in->nlen;
		if (k > m->code.exc_count && e[k - 1].end_pc == s) {
			e[k - 1].end_pc = (uint16_t)end;
			continue;
		}
		e[k].start_pc = (uint16_t)s;
		e[k].end_pc = (uint16_t)end;
		e[k].handler_pc = h;
		e[k].catch_type = 0;
		k++;
	}
	if (k > 0xFFFF) {
		free(e);
		return -EMP_REWRITE_E_EXC_TABLE_FULL;
	}
	*out = e;
	*count = (uint16_t)k;
	return 0;
}

static int build_smt(struct meth *m, struct buf *b)
{
	static const uint8_t throwable[] = "java/lang/Throwable";
	struct vt thr = { .tag = VT_OBJECT, .name = throwable, .nlen = sizeof(throwable) - 1 };
	struct frm hpost = { 0, 1, NULL, &thr };
	const struct frm *prev = &m->init;
	int64_t prev_pos = -1;
	uint32_t count = 0;
	int r = 0;
	/* Guarded: the handler reads the flag local, which every pc it covers holds (the entry is outside its range). */
	if (m->flag_len && (r = add_flag_local(m, &hpost)))
		return r;
	buf_u2(b, 0); /* patched below */
#define EMIT(f, pos)                                                                                         \
	do {                                                                                                 \
		r = put_frame(m, b, prev, (f), (uint32_t)((int64_t)(pos) - prev_pos - 1));                   \
		if (r)                                                                                       \
			goto out;                                                                            \
		prev = (f);                                                                                  \
		prev_pos = (pos);                                                                            \
		count++;                                                                                     \
	} while (0)
	/* Trampolines are emitted site by site, in index order within a site (as laid out). */
	for (uint32_t i = 0; i <= m->n; i++) {
		if (m->ins[i].ntramp) {
			for (uint32_t t = 0; t < m->ntr; t++) {
				if (m->tr[t].site != i)
					continue;
				int32_t fk = m->frame_at[m->tr[t].target];
				if (fk < 0) {
					r = -EMP_REWRITE_E_BAD_STACKMAP;
					goto out;
				}
				EMIT(&m->fr[fk], m->tr[t].pos);
			}
		}
		if (i < m->n && m->frame_at[i] >= 0)
			EMIT(&m->fr[m->frame_at[i]], m->ins[i].prefix);
	}
	EMIT(&hpost, m->h_post);
#undef EMIT
	if (count > 0xFFFF)
		r = -EMP_REWRITE_E_BAD_STACKMAP;
	else if (b->oom)
		r = -EMP_REWRITE_E_NOMEM;
	else
		emp_cf_put16(b->b.data, (uint16_t)count);
out:
	free(hpost.l);
	return r;
}

/* Debug-table pc mapping: 0 stays 0, otherwise the start of the (prefixed) instruction. */
static uint32_t map_dbg_start(const struct meth *m, uint32_t pc)
{
	if (pc == 0)
		return 0;
	while (m->at[pc] < 0)
		pc--;
	return m->ins[m->at[pc]].prefix;
}

static uint32_t map_dbg_end(const struct meth *m, uint32_t pc)
{
	while (m->at[pc] < 0)
		pc--;
	return m->ins[m->at[pc]].island;
}

/* Remap LineNumberTable (@lvt false) or LocalVariable(Type)Table (@lvt true) into cf-owned memory. */
static int remap_debug(struct meth *m, struct emp_cf_attr *a, bool lvt)
{
	uint32_t esz = lvt ? 10 : 4;
	if (a->len < 2)
		return -EMP_REWRITE_E_BAD_CODE;
	uint32_t n = emp_cf_be16(a->data);
	if (a->len != 2 + n * esz)
		return -EMP_REWRITE_E_BAD_CODE;
	uint8_t *d = emp_cf_alloc(m->rc->cf, a->len);
	if (!d)
		return -EMP_REWRITE_E_NOMEM;
	memcpy(d, a->data, a->len);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *e = d + 2 + i * esz;
		uint32_t start = emp_cf_be16(e);
		if (start >= m->code.code_len)
			return -EMP_REWRITE_E_BAD_CODE;
		uint32_t ns = map_dbg_start(m, start);
		emp_cf_put16(e, (uint16_t)ns);
		if (lvt) {
			uint32_t end = start + emp_cf_be16(e + 2);
			if (end > m->code.code_len)
				return -EMP_REWRITE_E_BAD_CODE;
			uint32_t ne = map_dbg_end(m, end);
			emp_cf_put16(e + 2, (uint16_t)(ne >= ns ? ne - ns : 0));
		}
	}
	a->data = d;
	return 0;
}

static void set_push(struct meth *m, int32_t id, int ldc_idx)
{
	if (id <= 5) {
		m->push[0] = (uint8_t)(OP_ICONST_0 + id);
		m->push_len = 1;
	} else if (id <= 127) {
		m->push[0] = OP_BIPUSH;
		m->push[1] = (uint8_t)id;
		m->push_len = 2;
	} else if (id <= 32767) {
		m->push[0] = OP_SIPUSH;
		emp_cf_put16(m->push + 1, (uint16_t)id);
		m->push_len = 3;
	} else if (ldc_idx <= 255) {
		m->push[0] = OP_LDC;
		m->push[1] = (uint8_t)ldc_idx;
		m->push_len = 2;
	} else {
		m->push[0] = OP_LDC_W;
		emp_cf_put16(m->push + 1, (uint16_t)ldc_idx);
		m->push_len = 3;
	}
	m->exit_len = m->flag_len + m->push_len + 3;
	m->hdr_len = m->is_ctor ? 0 : m->exit_len; /* a constructor's entry follows the super()/this() call instead */
	m->thr_len = m->exit_len + 1;
}

static int ensure_probe_refs(struct rw_class *rc)
{
	if (rc->mref_enter)
		return 0;
	const char *ed = rc->guarded ? "(I)Z" : "(I)V", *xd = rc->guarded ? "(ZI)V" : "(I)V";
	int a = emp_cf_add_methodref(rc->cf, rc->klass, rc->enter, ed);
	int b = a < 0 ? a : emp_cf_add_methodref(rc->cf, rc->klass, rc->exit, xd);
	int c = b < 0 ? b : emp_cf_add_methodref(rc->cf, rc->klass, rc->exit_throw, xd);
	if (c < 0)
		return cf_reason(c);
	rc->mref_enter = a;
	rc->mref_exit = b;
	rc->mref_throw = c;
	return 0;
}

static void meth_release(struct meth *m)
{
	emp_cf_code_release(&m->code);
	free(m->ins);
	free(m->at);
	free(m->swt);
	free(m->tr);
	for (uint32_t k = 0; k < m->nfr; k++)
		frm_free(&m->fr[k]);
	free(m->fr);
	free(m->frame_at);
	frm_free(&m->init);
}

static bool attr_is(const struct emp_classfile *cf, const struct emp_cf_attr *a, const char *name)
{
	return emp_cf_utf8_eq(cf, a->name_index, name);
}

/* Which attributes the Code attribute carries: one StackMapTable at most (remembered in m->smt_attr), besides it
 * only the debug tables remap_debug() rewrites and the type annotations new_code_attrs() drops. */
static int scan_code_attrs(struct meth *m)
{
	const struct emp_classfile *cf = m->rc->cf;
	for (uint16_t i = 0; i < m->code.attr_count; i++) {
		const struct emp_cf_attr *a = &m->code.attrs[i];
		if (attr_is(cf, a, "StackMapTable")) {
			if (m->has_smt)
				return -EMP_REWRITE_E_BAD_STACKMAP;
			m->has_smt = true;
			m->smt_attr = i;
		} else if (!attr_is(cf, a, "LineNumberTable") && !attr_is(cf, a, "LocalVariableTable") &&
			   !attr_is(cf, a, "LocalVariableTypeTable") &&
			   !attr_is(cf, a, "RuntimeVisibleTypeAnnotations") &&
			   !attr_is(cf, a, "RuntimeInvisibleTypeAnnotations")) {
			return -EMP_REWRITE_E_CODE_ATTR;
		}
	}
	return 0;
}

/* Read the method as it is: instructions, handlers, attributes, the stack-map frames, the constructor's
 * super()/this() call; then mark where trampolines may go.  Changes nothing in the class file. */
static int analyse(struct meth *m, int code_idx)
{
	int r = emp_cf_code_parse(&m->mb->attrs[code_idx], &m->code);
	if (r)
		return cf_reason(r);
	if ((r = decode(m)) || (r = check_exceptions(m)) || (r = scan_code_attrs(m)))
		return r;
	m->want_smt = m->rc->cf->major_version >= 50;
	if (!m->want_smt)
		m->has_smt = false; /* below 50 the JVM ignores a StackMapTable: not decoded, dropped */
	if (m->is_ctor && (r = ctor_analyse(m)))
		return r;
	if ((r = initial_frame(m)) || (r = decode_frames(m)))
		return r;
	if (m->is_ctor && (r = ctor_check_frames(m)))
		return r;
	mark_candidates(m);
	return 0;
}

/* Guarded shape: the flag local's index (max_locals, which grows by one) and its iload/istore. */
static int set_flag(struct meth *m)
{
	uint16_t f = m->code.max_locals;
	if (f == 0xFFFF)
		return -EMP_REWRITE_E_CODE_TOO_LARGE;
	if (f <= 3) {
		m->load[0] = (uint8_t)(OP_ILOAD_0 + f);
		m->store[0] = (uint8_t)(OP_ISTORE_0 + f);
		m->flag_len = 1;
	} else if (f <= 255) {
		m->load[0] = OP_ILOAD;
		m->store[0] = OP_ISTORE;
		m->load[1] = m->store[1] = (uint8_t)f;
		m->flag_len = 2;
	} else {
		m->load[0] = m->store[0] = OP_WIDE;
		m->load[1] = OP_ILOAD;
		m->store[1] = OP_ISTORE;
		emp_cf_put16(m->load + 2, f);
		emp_cf_put16(m->store + 2, f);
		m->flag_len = 4;
	}
	return add_flag_locals(m);
}

/* The constants the probes need (the three Methodrefs, an Integer for an id beyond sipush), the guarded shape's
 * flag local, and the instruction that pushes the id, which fix the probes' lengths. */
static int prepare_probes(struct meth *m)
{
	int r = ensure_probe_refs(m->rc);
	if (r || (m->rc->guarded && (r = set_flag(m))))
		return r;
	int ldc_idx = 0;
	if (m->id > 32767) {
		ldc_idx = emp_cf_add_integer(m->rc->cf, m->id);
		if (ldc_idx < 0)
			return cf_reason(ldc_idx);
	}
	set_push(m, m->id, ldc_idx);
	return 0;
}

/* Place every instruction, probe and trampoline island, widening branches until all of them reach (at most 65
 * rounds); the method must still fit the JVM's limits. */
static int lay_out(struct meth *m)
{
	for (int pass = 0;; pass++) {
		layout(m);
		if (pass > 64)
			return -EMP_REWRITE_E_BRANCH_OVERFLOW;
		int c = fix_branches(m);
		if (c < 0)
			return c;
		if (!c)
			break;
	}
	if (m->total > 0xFFFF)
		return -EMP_REWRITE_E_CODE_TOO_LARGE;
	return 0;
}

/* The new Code attribute's attribute list, in @attrs (room for code.attr_count + 1), @na entries: debug tables
 * remapped, type annotations dropped, the StackMapTable @smt replacing the old one or appended (its name added to
 * the constant pool once per class). */
static int new_code_attrs(struct meth *m, const struct buf *smt, struct emp_cf_attr *attrs, uint16_t *na)
{
	struct emp_classfile *cf = m->rc->cf;
	struct rw_class *rc = m->rc;
	int r = 0;
	*na = 0;
	for (uint16_t i = 0; i < m->code.attr_count; i++) {
		struct emp_cf_attr a = m->code.attrs[i];
		if (attr_is(cf, &a, "RuntimeVisibleTypeAnnotations") || attr_is(cf, &a, "RuntimeInvisibleTypeAnnotations"))
			continue;
		if (i == m->smt_attr) {
			if (!m->want_smt)
				continue; /* < 50: the JVM ignores it; keep the old verifier's view */
			a.data = NULL;
		} else if (attr_is(cf, &a, "LineNumberTable")) {
			r = remap_debug(m, &a, false);
		} else {
			r = remap_debug(m, &a, true);
		}
		if (r)
			return r;
		attrs[(*na)++] = a;
	}
	if (!m->want_smt)
		return 0;
	uint8_t *d = emp_cf_alloc(cf, smt->b.len);
	if (!d)
		return -EMP_REWRITE_E_NOMEM;
	memcpy(d, smt->b.data, smt->b.len);
	if (m->has_smt) {
		for (uint16_t i = 0; i < *na; i++)
			if (!attrs[i].data) {
				attrs[i].data = d;
				attrs[i].len = (uint32_t)smt->b.len;
			}
		return 0;
	}
	if (!rc->smt_name) {
		int idx = emp_cf_add_utf8(cf, "StackMapTable", 13);
		if (idx < 0)
			return cf_reason(idx);
		rc->smt_name = idx;
	}
	attrs[*na].name_index = (uint16_t)rc->smt_name;
	attrs[*na].data = d;
	attrs[(*na)++].len = (uint32_t)smt->b.len;
	return 0;
}

/* Instrument one method: analyse, add the probes' constants, lay out, then build and encode the new Code
 * attribute.  On failure nothing in the class file has changed except possibly appended constant-pool entries
 * (harmless). */
static int instrument(struct rw_class *rc, struct emp_cf_member *mb, int code_idx, int32_t id, bool is_ctor)
{
	struct emp_classfile *cf = rc->cf;
	struct meth m = { .rc = rc, .mb = mb, .id = id, .is_ctor = is_ctor, .super_idx = -1, .smt_attr = -1 };
	struct emp_cf_exc *exc = NULL;
	struct emp_cf_attr *attrs = NULL;
	struct buf smt = { 0 };
	uint8_t *code = NULL;
	uint16_t exc_count, na;
	int r;
	if ((r = analyse(&m, code_idx)) || (r = prepare_probes(&m)) || (r = lay_out(&m)))
		goto out;
	if ((r = build_exc(&m, &exc, &exc_count)))
		goto out;
	if (m.want_smt && (r = build_smt(&m, &smt)))
		goto out;
	code = emp_cf_alloc(cf, m.total);
	attrs = code ? calloc((size_t)m.code.attr_count + 1, sizeof(*attrs)) : NULL;
	if (!attrs) {
		r = -EMP_REWRITE_E_NOMEM;
		goto out;
	}
	emit_code(&m, code);
	if ((r = new_code_attrs(&m, &smt, attrs, &na)))
		goto out;
	/* The probes push the id (guarded: the flag too) above a return's value, or above the exception in H. */
	uint32_t grow = rc->guarded ? 2 : 1, max_stack = m.code.max_stack + grow;
	if (max_stack < grow + 1)
		max_stack = grow + 1;
	if (max_stack > 0xFFFF) {
		r = -EMP_REWRITE_E_CODE_TOO_LARGE;
		goto out;
	}
	struct emp_cf_code nc = {
		.max_stack = (uint16_t)max_stack,
		.max_locals = (uint16_t)(m.code.max_locals + (rc->guarded ? 1 : 0)),
		.code_len = m.total,
		.code = code,
		.exc_count = exc_count,
		.exc = exc,
		.attr_count = na,
		.attrs = attrs,
	};
	struct emp_cf_attr newattr = mb->attrs[code_idx];
	if ((r = emp_cf_code_encode(cf, &nc, &newattr))) {
		r = cf_reason(r);
		goto out;
	}
	mb->attrs[code_idx] = newattr;
out:
	free(exc);
	free(attrs);
	emp_buf_free(&smt.b);
	meth_release(&m);
	return r;
}

static char *utf8_dup(const struct emp_classfile *cf, uint16_t idx)
{
	uint16_t n;
	const uint8_t *u = emp_cf_utf8(cf, idx, &n);
	if (!u || memchr(u, 0, n))
		return NULL;
	char *s = malloc((size_t)n + 1);
	if (s) {
		memcpy(s, u, n);
		s[n] = 0;
	}
	return s;
}

/* Skip one element_value (JVMS 4.7.16.1) of at most @depth nested levels in [*p, end).  Return: 0, or -1 when it
 * runs past the end or nests deeper. */
static int skip_element_value(const uint8_t **p, const uint8_t *end, int depth);

/* Skip one annotation (type_index, pairs of name_index and element_value). */
static int skip_annotation(const uint8_t **p, const uint8_t *end, int depth)
{
	if (depth <= 0 || end - *p < 4)
		return -1;
	uint16_t pairs = emp_cf_be16(*p + 2);
	*p += 4;
	for (uint16_t i = 0; i < pairs; i++) {
		if (end - *p < 2)
			return -1;
		*p += 2;
		if (skip_element_value(p, end, depth - 1))
			return -1;
	}
	return 0;
}

static int skip_element_value(const uint8_t **p, const uint8_t *end, int depth)
{
	if (depth <= 0 || end - *p < 1)
		return -1;
	uint8_t tag = *(*p)++;
	switch (tag) {
	case 'e':
		if (end - *p < 4)
			return -1;
		*p += 4;
		return 0;
	case '@':
		return skip_annotation(p, end, depth - 1);
	case '[': {
		if (end - *p < 2)
			return -1;
		uint16_t n = emp_cf_be16(*p);
		*p += 2;
		for (uint16_t i = 0; i < n; i++)
			if (skip_element_value(p, end, depth - 1))
				return -1;
		return 0;
	}
	default: /* B C D F I J S Z s c: one constant-pool index */
		if (end - *p < 2)
			return -1;
		*p += 2;
		return 0;
	}
}

/* Does method @mb carry the runtime-visible annotation of type descriptor @type?  A malformed attribute answers no
 * (the JVM rejects the class anyway). */
static bool has_annotation(const struct emp_classfile *cf, const struct emp_cf_member *mb, const char *type)
{
	for (uint16_t k = 0; k < mb->attr_count; k++) {
		const struct emp_cf_attr *a = &mb->attrs[k];
		if (!attr_is(cf, a, "RuntimeVisibleAnnotations") || a->len < 2)
			continue;
		const uint8_t *p = a->data + 2, *end = a->data + a->len;
		for (uint16_t n = emp_cf_be16(a->data); n > 0; n--) {
			if (end - p >= 2 && emp_cf_utf8_eq(cf, emp_cf_be16(p), type))
				return true;
			if (skip_annotation(&p, end, 32))
				return false;
		}
	}
	return false;
}

int emp_rewrite_class(const uint8_t *in, size_t len, emp_rewrite_select_fn select, void *ctx,
		      const struct emp_probes *names, uint8_t **out, size_t *out_len,
		      struct emp_rewrite_stats *stats)
{
	struct emp_rewrite_stats local = { 0 };
	struct emp_classfile *cf = NULL;
	char *cname = NULL;
	int r;
	*out = NULL;
	*out_len = 0;
	local.classes_seen = 1;
	r = emp_cf_parse(in, len, &cf);
	if (r) {
		r = cf_reason(r);
		goto done;
	}
	struct rw_class rc = { .cf = cf };
	rc.klass = names && names->klass ? names->klass : "emp/Probe";
	rc.enter = names && names->enter ? names->enter : "enter";
	rc.exit = names && names->exit ? names->exit : "exit";
	rc.exit_throw = names && names->exit_throw ? names->exit_throw : "exitThrow";
	rc.guarded = names && names->guarded;
	uint16_t tn = emp_cf_const_u2(cf, cf->this_class, EMP_CP_CLASS, 0);
	rc.this_name = tn ? emp_cf_utf8(cf, tn, &rc.this_name_len) : NULL;
	cname = tn ? utf8_dup(cf, tn) : NULL;
	if (!rc.this_name || !cname) {
		r = -EMP_REWRITE_E_BAD_CLASS;
		goto done;
	}
	if (strcmp(cname, rc.klass) == 0 || (cf->access_flags & EMP_ACC_MODULE))
		goto done; /* never instrument the probe class; module-info has no code */
	bool is_object = strcmp(cname, "java/lang/Object") == 0;
	for (uint16_t i = 0; i < cf->methods_count; i++) {
		struct emp_cf_member *mb = &cf->methods[i];
		int ci = -1;
		for (uint16_t k = 0; k < mb->attr_count; k++) {
			if (!emp_cf_utf8_eq(cf, mb->attrs[k].name_index, "Code"))
				continue;
			if (ci >= 0) {
				r = -EMP_REWRITE_E_BAD_CLASS;
				goto done;
			}
			ci = k;
		}
		if (ci < 0 || (mb->access_flags & (EMP_ACC_ABSTRACT | EMP_ACC_NATIVE)))
			continue;
		/* The JDK's mark for code that runs on a virtual thread's stack outside its JVMTI mount (JDK 24+:
		 * Continuation.enter/enter0/yield/yield0, the continuation's bottom frame): JVMTI posts no method
		 * events there, and a probe there would write to the carrier's trace for an entry whose exit comes on
		 * another carrier (vthread.h).  Never instrumented, like the JVM's own MethodEntry/MethodExit. */
		if (has_annotation(cf, mb, "Ljdk/internal/vm/annotation/JvmtiHideEvents;"))
			continue;
		/* Code: max_stack u2, max_locals u2, code_length u4 (one too short to say is instrument()'s to refuse) */
		const struct emp_cf_attr *ca = &mb->attrs[ci];
		if (names && names->min_code_len && ca->len >= 8 && emp_cf_be32(ca->data + 4) < names->min_code_len) {
			local.methods_small++;
			continue;
		}
		char *mname = utf8_dup(cf, mb->name_index), *mdesc = utf8_dup(cf, mb->descriptor_index);
		if (!mname || !mdesc) {
			free(mname);
			free(mdesc);
			r = -EMP_REWRITE_E_BAD_CLASS;
			goto done;
		}
		int32_t id = select(ctx, cname, mname, mdesc, mb->access_flags);
		bool is_ctor = !is_object && strcmp(mname, "<init>") == 0;
		free(mname);
		free(mdesc);
		if (id < 0)
			continue;
		int mr = instrument(&rc, mb, ci, id, is_ctor);
		if (mr == -EMP_REWRITE_E_NOMEM) {
			r = mr;
			goto done;
		}
		if (mr < 0)
			local.methods_skipped[-mr]++;
		else
			local.methods_instrumented++;
	}
	if (local.methods_instrumented) {
		int w = emp_cf_write(cf, out, out_len);
		if (w) {
			r = cf_reason(w);
			goto done;
		}
		local.classes_rewritten = 1;
	}
done:
	if (r < 0) {
		memset(&local, 0, sizeof(local));
		local.classes_seen = 1;
		local.classes_failed[-r]++;
		*out = NULL;
		*out_len = 0;
	}
	if (stats) {
		stats->classes_seen += local.classes_seen;
		stats->classes_rewritten += local.classes_rewritten;
		stats->methods_instrumented += local.methods_instrumented;
		stats->methods_small += local.methods_small;
		for (int k = 0; k < EMP_REWRITE_NREASONS; k++) {
			stats->methods_skipped[k] += local.methods_skipped[k];
			stats->classes_failed[k] += local.classes_failed[k];
		}
	}
	free(cname);
	emp_cf_free(cf);
	return r;
}
