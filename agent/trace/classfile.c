/* SPDX-License-Identifier: MIT */
/* classfile.c - bounds-checked Java class-file parser and writer (JVMS SE 25, chapter 4). */
#include "classfile.h"

#include <stdlib.h>
#include <string.h>

#define EMP_CF_MIN_MAJOR 45
#define EMP_CF_MAX_MAJOR 69 /* Java SE 25 */

static const char *const emp_cf_errstr[EMP_CF_NERRORS] = {
	[EMP_CF_OK] = "success",
#define EMP_CF_X_STR(name, str) [EMP_CF_E_##name] = str,
	EMP_CF_ERRORS(EMP_CF_X_STR)
#undef EMP_CF_X_STR
};

const char *emp_cf_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= EMP_CF_NERRORS)
		return "unknown";
	return emp_cf_errstr[err];
}

/* Owned buffers form a singly linked list; the payload follows the header. */
struct emp_cf_owned {
	struct emp_cf_owned *next;
	max_align_t align[];
};

void *emp_cf_alloc(struct emp_classfile *cf, size_t size)
{
	if (size > SIZE_MAX - sizeof(struct emp_cf_owned))
		return NULL;
	struct emp_cf_owned *o = calloc(1, sizeof(*o) + size);
	if (!o)
		return NULL;
	o->next = cf->owned;
	cf->owned = o;
	return o->align;
}

/* A read cursor: every read checks the remaining length first and latches an error. */
struct rd {
	const uint8_t *p, *end;
	int err;
};

static int rd_need(struct rd *r, size_t n)
{
	if (r->err)
		return 0;
	if ((size_t)(r->end - r->p) < n) {
		r->err = -EMP_CF_E_TRUNCATED;
		return 0;
	}
	return 1;
}

static uint16_t rd_u2(struct rd *r)
{
	if (!rd_need(r, 2))
		return 0;
	uint16_t v = emp_cf_be16(r->p);
	r->p += 2;
	return v;
}

static uint32_t rd_u4(struct rd *r)
{
	if (!rd_need(r, 4))
		return 0;
	uint32_t v = emp_cf_be32(r->p);
	r->p += 4;
	return v;
}

static const uint8_t *rd_bytes(struct rd *r, size_t n)
{
	if (!rd_need(r, n))
		return NULL;
	const uint8_t *p = r->p;
	r->p += n;
	return p;
}

/* Size of a constant's info (after the tag) by tag; 0 = variable (Utf8) or invalid (-1). */
static int cp_info_size(uint8_t tag)
{
	switch (tag) {
	case EMP_CP_INTEGER: case EMP_CP_FLOAT: case EMP_CP_FIELDREF: case EMP_CP_METHODREF:
	case EMP_CP_IMETHODREF: case EMP_CP_NAME_AND_TYPE: case EMP_CP_DYNAMIC: case EMP_CP_INVOKE_DYNAMIC:
		return 4;
	case EMP_CP_LONG: case EMP_CP_DOUBLE:
		return 8;
	case EMP_CP_CLASS: case EMP_CP_STRING: case EMP_CP_METHOD_TYPE: case EMP_CP_MODULE:
	case EMP_CP_PACKAGE:
		return 2;
	case EMP_CP_METHOD_HANDLE:
		return 3;
	case EMP_CP_UTF8:
		return 0;
	default:
		return -1;
	}
}

static int parse_attrs(struct rd *r, uint16_t *count, struct emp_cf_attr **out)
{
	uint16_t n = rd_u2(r);
	if (r->err)
		return r->err;
	*count = n;
	*out = NULL;
	if (n == 0)
		return 0;
	/* Each attribute needs at least 6 bytes: reject absurd counts before allocating. */
	if ((size_t)(r->end - r->p) / 6 < n)
		return r->err = -EMP_CF_E_TRUNCATED;
	struct emp_cf_attr *a = calloc(n, sizeof(*a));
	if (!a)
		return r->err = -EMP_CF_E_NOMEM;
	*out = a;
	for (uint16_t i = 0; i < n; i++) {
		a[i].name_index = rd_u2(r);
		a[i].len = rd_u4(r);
		a[i].data = rd_bytes(r, a[i].len);
		if (r->err)
			return r->err;
	}
	return 0;
}

static int parse_members(struct rd *r, uint16_t *count, struct emp_cf_member **out)
{
	uint16_t n = rd_u2(r);
	if (r->err)
		return r->err;
	*count = n;
	*out = NULL;
	if (n == 0)
		return 0;
	if ((size_t)(r->end - r->p) / 8 < n)
		return r->err = -EMP_CF_E_TRUNCATED;
	struct emp_cf_member *m = calloc(n, sizeof(*m));
	if (!m)
		return r->err = -EMP_CF_E_NOMEM;
	*out = m;
	for (uint16_t i = 0; i < n; i++) {
		m[i].access_flags = rd_u2(r);
		m[i].name_index = rd_u2(r);
		m[i].descriptor_index = rd_u2(r);
		if (parse_attrs(r, &m[i].attr_count, &m[i].attrs))
			return r->err;
	}
	return r->err;
}

int emp_cf_parse(const uint8_t *buf, size_t len, struct emp_classfile **out)
{
	*out = NULL;
	struct emp_classfile *cf = calloc(1, sizeof(*cf));
	if (!cf)
		return -EMP_CF_E_NOMEM;
	struct rd r = { buf, buf + len, 0 };
	int err;

	if (rd_u4(&r) != 0xCAFEBABEu) {
		err = r.err ? r.err : -EMP_CF_E_BAD_MAGIC;
		goto fail;
	}
	cf->minor_version = rd_u2(&r);
	cf->major_version = rd_u2(&r);
	cf->cp_count = rd_u2(&r);
	if (r.err) {
		err = r.err;
		goto fail;
	}
	if (cf->major_version < EMP_CF_MIN_MAJOR || cf->major_version > EMP_CF_MAX_MAJOR) {
		err = -EMP_CF_E_BAD_VERSION;
		goto fail;
	}
	if (cf->cp_count == 0) {
		err = -EMP_CF_E_BAD_CONSTANT;
		goto fail;
	}
	/* Room for a few appended entries without reallocating. */
	cf->cp_cap = (uint32_t)cf->cp_count + 16;
	cf->cp = calloc(cf->cp_cap, sizeof(*cf->cp));
	if (!cf->cp) {
		err = -EMP_CF_E_NOMEM;
		goto fail;
	}
	for (uint32_t i = 1; i < cf->cp_count; i++) {
		if (!rd_need(&r, 1)) {
			err = r.err;
			goto fail;
		}
		uint8_t tag = *r.p++;
		int sz = cp_info_size(tag);
		if (sz < 0) {
			err = -EMP_CF_E_BAD_CONSTANT;
			goto fail;
		}
		const uint8_t *info = r.p;
		if (sz == 0) { /* Utf8: u2 length + bytes */
			uint16_t n = rd_u2(&r);
			if (!rd_bytes(&r, n)) {
				err = r.err;
				goto fail;
			}
			sz = 2 + n;
		} else if (!rd_bytes(&r, (size_t)sz)) {
			err = r.err;
			goto fail;
		}
		cf->cp[i].tag = tag;
		cf->cp[i].info = info;
		cf->cp[i].len = (uint16_t)sz;
		if (tag == EMP_CP_LONG || tag == EMP_CP_DOUBLE) {
			if (i + 1 >= cf->cp_count) {
				err = -EMP_CF_E_BAD_CONSTANT;
				goto fail;
			}
			i++; /* the unusable second slot stays tag 0 */
		}
	}
	cf->access_flags = rd_u2(&r);
	cf->this_class = rd_u2(&r);
	cf->super_class = rd_u2(&r);
	cf->interfaces_count = rd_u2(&r);
	cf->interfaces = rd_bytes(&r, (size_t)cf->interfaces_count * 2);
	if (r.err) {
		err = r.err;
		goto fail;
	}
	if (parse_members(&r, &cf->fields_count, &cf->fields) ||
	    parse_members(&r, &cf->methods_count, &cf->methods) ||
	    parse_attrs(&r, &cf->attr_count, &cf->attrs)) {
		err = r.err;
		goto fail;
	}
	if (r.p != r.end) {
		err = -EMP_CF_E_TRAILING;
		goto fail;
	}
	*out = cf;
	return 0;
fail:
	emp_cf_free(cf);
	return err;
}

static void free_members(struct emp_cf_member *m, uint16_t n)
{
	if (!m)
		return;
	for (uint16_t i = 0; i < n; i++)
		free(m[i].attrs);
	free(m);
}

void emp_cf_free(struct emp_classfile *cf)
{
	if (!cf)
		return;
	free(cf->cp);
	free_members(cf->fields, cf->fields_count);
	free_members(cf->methods, cf->methods_count);
	free(cf->attrs);
	struct emp_cf_owned *o = cf->owned;
	while (o) {
		struct emp_cf_owned *next = o->next;
		free(o);
		o = next;
	}
	free(cf);
}

static size_t attrs_size(const struct emp_cf_attr *a, uint16_t n)
{
	size_t s = 2;
	for (uint16_t i = 0; i < n; i++)
		s += 6 + (size_t)a[i].len;
	return s;
}

static size_t members_size(const struct emp_cf_member *m, uint16_t n)
{
	size_t s = 2;
	for (uint16_t i = 0; i < n; i++)
		s += 6 + attrs_size(m[i].attrs, m[i].attr_count);
	return s;
}

size_t emp_cf_size(const struct emp_classfile *cf)
{
	size_t s = 10; /* magic, versions, cp_count */
	for (uint32_t i = 1; i < cf->cp_count; i++)
		if (cf->cp[i].tag)
			s += 1 + (size_t)cf->cp[i].len;
	s += 8 + (size_t)cf->interfaces_count * 2;
	s += members_size(cf->fields, cf->fields_count);
	s += members_size(cf->methods, cf->methods_count);
	s += attrs_size(cf->attrs, cf->attr_count);
	return s;
}

static uint8_t *put_attrs(uint8_t *p, const struct emp_cf_attr *a, uint16_t n)
{
	emp_cf_put16(p, n);
	p += 2;
	for (uint16_t i = 0; i < n; i++) {
		emp_cf_put16(p, a[i].name_index);
		emp_cf_put32(p + 2, a[i].len);
		p += 6;
		if (a[i].len)
			memcpy(p, a[i].data, a[i].len);
		p += a[i].len;
	}
	return p;
}

static uint8_t *put_members(uint8_t *p, const struct emp_cf_member *m, uint16_t n)
{
	emp_cf_put16(p, n);
	p += 2;
	for (uint16_t i = 0; i < n; i++) {
		emp_cf_put16(p, m[i].access_flags);
		emp_cf_put16(p + 2, m[i].name_index);
		emp_cf_put16(p + 4, m[i].descriptor_index);
		p = put_attrs(p + 6, m[i].attrs, m[i].attr_count);
	}
	return p;
}

int emp_cf_write(const struct emp_classfile *cf, uint8_t **out, size_t *out_len)
{
	size_t size = emp_cf_size(cf);
	uint8_t *buf = malloc(size);
	if (!buf)
		return -EMP_CF_E_NOMEM;
	uint8_t *p = buf;
	emp_cf_put32(p, 0xCAFEBABEu);
	emp_cf_put16(p + 4, cf->minor_version);
	emp_cf_put16(p + 6, cf->major_version);
	emp_cf_put16(p + 8, cf->cp_count);
	p += 10;
	for (uint32_t i = 1; i < cf->cp_count; i++) {
		if (!cf->cp[i].tag)
			continue;
		*p++ = cf->cp[i].tag;
		memcpy(p, cf->cp[i].info, cf->cp[i].len);
		p += cf->cp[i].len;
	}
	emp_cf_put16(p, cf->access_flags);
	emp_cf_put16(p + 2, cf->this_class);
	emp_cf_put16(p + 4, cf->super_class);
	emp_cf_put16(p + 6, cf->interfaces_count);
	p += 8;
	if (cf->interfaces_count)
		memcpy(p, cf->interfaces, (size_t)cf->interfaces_count * 2);
	p += (size_t)cf->interfaces_count * 2;
	p = put_members(p, cf->fields, cf->fields_count);
	p = put_members(p, cf->methods, cf->methods_count);
	p = put_attrs(p, cf->attrs, cf->attr_count);
	*out = buf;
	*out_len = (size_t)(p - buf);
	return 0;
}

/* --- constant pool look-ups --- */

static const struct emp_cf_const *cp_get(const struct emp_classfile *cf, uint32_t idx, uint8_t tag)
{
	if (idx == 0 || idx >= cf->cp_count || cf->cp[idx].tag != tag)
		return NULL;
	return &cf->cp[idx];
}

const uint8_t *emp_cf_utf8(const struct emp_classfile *cf, uint32_t idx, uint16_t *len)
{
	const struct emp_cf_const *c = cp_get(cf, idx, EMP_CP_UTF8);
	if (!c)
		return NULL;
	*len = emp_cf_be16(c->info);
	return c->info + 2;
}

int emp_cf_utf8_eq(const struct emp_classfile *cf, uint32_t idx, const char *s)
{
	uint16_t n;
	const uint8_t *u = emp_cf_utf8(cf, idx, &n);
	return u && strlen(s) == n && memcmp(u, s, n) == 0;
}

uint16_t emp_cf_const_u2(const struct emp_classfile *cf, uint32_t idx, uint8_t tag, uint32_t at)
{
	const struct emp_cf_const *c = cp_get(cf, idx, tag);
	if (!c || (uint32_t)c->len < at + 2)
		return 0;
	return emp_cf_be16(c->info + at);
}

const uint8_t *emp_cf_class_name(const struct emp_classfile *cf, uint32_t idx, uint16_t *len)
{
	uint16_t name = emp_cf_const_u2(cf, idx, EMP_CP_CLASS, 0);
	return name ? emp_cf_utf8(cf, name, len) : NULL;
}

/* --- constant pool appends --- */

static int cp_find(const struct emp_classfile *cf, uint8_t tag, const uint8_t *info, uint16_t len)
{
	for (uint32_t i = 1; i < cf->cp_count; i++)
		if (cf->cp[i].tag == tag && cf->cp[i].len == len && memcmp(cf->cp[i].info, info, len) == 0)
			return (int)i;
	return 0;
}

static int cp_append(struct emp_classfile *cf, uint8_t tag, const uint8_t *info, uint16_t len)
{
	int found = cp_find(cf, tag, info, len);
	if (found)
		return found;
	if (cf->cp_count >= 0xFFFF)
		return -EMP_CF_E_TOO_MANY;
	if (cf->cp_count >= cf->cp_cap) {
		uint32_t cap = cf->cp_cap * 2;
		if (cap > 0x10000)
			cap = 0x10000;
		struct emp_cf_const *n = realloc(cf->cp, cap * sizeof(*n));
		if (!n)
			return -EMP_CF_E_NOMEM;
		memset(n + cf->cp_cap, 0, (cap - cf->cp_cap) * sizeof(*n));
		cf->cp = n;
		cf->cp_cap = cap;
	}
	uint8_t *copy = emp_cf_alloc(cf, len);
	if (!copy)
		return -EMP_CF_E_NOMEM;
	memcpy(copy, info, len);
	uint32_t idx = cf->cp_count++;
	cf->cp[idx].tag = tag;
	cf->cp[idx].info = copy;
	cf->cp[idx].len = len;
	return (int)idx;
}

int emp_cf_add_utf8(struct emp_classfile *cf, const char *s, size_t len)
{
	if (len > 0xFFFF - 2)
		return -EMP_CF_E_TOO_MANY;
	uint8_t stackbuf[258];
	uint8_t *info = len + 2 <= sizeof(stackbuf) ? stackbuf : malloc(len + 2);
	if (!info)
		return -EMP_CF_E_NOMEM;
	emp_cf_put16(info, (uint16_t)len);
	memcpy(info + 2, s, len);
	int r = cp_append(cf, EMP_CP_UTF8, info, (uint16_t)(len + 2));
	if (info != stackbuf)
		free(info);
	return r;
}

static int cp_append_refs(struct emp_classfile *cf, uint8_t tag, int a, int b, int nrefs)
{
	if (a < 0)
		return a;
	if (b < 0)
		return b;
	uint8_t info[4];
	emp_cf_put16(info, (uint16_t)a);
	emp_cf_put16(info + 2, (uint16_t)b);
	return cp_append(cf, tag, info, (uint16_t)(2 * nrefs));
}

int emp_cf_add_class(struct emp_classfile *cf, const char *name, size_t len)
{
	return cp_append_refs(cf, EMP_CP_CLASS, emp_cf_add_utf8(cf, name, len), 0, 1);
}

int emp_cf_add_name_and_type(struct emp_classfile *cf, const char *name, const char *desc)
{
	int n = emp_cf_add_utf8(cf, name, strlen(name));
	int d = n < 0 ? n : emp_cf_add_utf8(cf, desc, strlen(desc));
	return cp_append_refs(cf, EMP_CP_NAME_AND_TYPE, n, d, 2);
}

int emp_cf_add_methodref(struct emp_classfile *cf, const char *klass, const char *name, const char *desc)
{
	int c = emp_cf_add_class(cf, klass, strlen(klass));
	int nt = c < 0 ? c : emp_cf_add_name_and_type(cf, name, desc);
	return cp_append_refs(cf, EMP_CP_METHODREF, c, nt, 2);
}

int emp_cf_add_integer(struct emp_classfile *cf, int32_t value)
{
	uint8_t info[4];
	emp_cf_put32(info, (uint32_t)value);
	return cp_append(cf, EMP_CP_INTEGER, info, 4);
}

int emp_cf_find_attr(const struct emp_classfile *cf, const struct emp_cf_attr *attrs, uint16_t n,
		     const char *name)
{
	for (uint16_t i = 0; i < n; i++)
		if (emp_cf_utf8_eq(cf, attrs[i].name_index, name))
			return i;
	return -1;
}

/* --- Code attribute --- */

int emp_cf_code_parse(const struct emp_cf_attr *attr, struct emp_cf_code *code)
{
	memset(code, 0, sizeof(*code));
	struct rd r = { attr->data, attr->data + attr->len, 0 };
	code->max_stack = rd_u2(&r);
	code->max_locals = rd_u2(&r);
	code->code_len = rd_u4(&r);
	if (r.err || code->code_len == 0 || code->code_len > 0xFFFF)
		return -EMP_CF_E_BAD_CODE;
	code->code = rd_bytes(&r, code->code_len);
	code->exc_count = rd_u2(&r);
	if (r.err || (size_t)(r.end - r.p) / 8 < code->exc_count)
		return -EMP_CF_E_BAD_CODE;
	if (code->exc_count) {
		code->exc = calloc(code->exc_count, sizeof(*code->exc));
		if (!code->exc)
			return -EMP_CF_E_NOMEM;
		for (uint16_t i = 0; i < code->exc_count; i++) {
			code->exc[i].start_pc = rd_u2(&r);
			code->exc[i].end_pc = rd_u2(&r);
			code->exc[i].handler_pc = rd_u2(&r);
			code->exc[i].catch_type = rd_u2(&r);
		}
	}
	int err = parse_attrs(&r, &code->attr_count, &code->attrs);
	if (err == -EMP_CF_E_NOMEM)
		goto fail;
	if (err || r.p != r.end) {
		err = -EMP_CF_E_BAD_CODE;
		goto fail;
	}
	return 0;
fail:
	emp_cf_code_release(code);
	return err;
}

void emp_cf_code_release(struct emp_cf_code *code)
{
	free(code->exc);
	free(code->attrs);
	code->exc = NULL;
	code->attrs = NULL;
}

int emp_cf_code_encode(struct emp_classfile *cf, const struct emp_cf_code *code, struct emp_cf_attr *attr)
{
	size_t size = 12 + (size_t)code->code_len + (size_t)code->exc_count * 8 +
		      attrs_size(code->attrs, code->attr_count) - 2;
	if (size > 0xFFFFFFFFu)
		return -EMP_CF_E_TOO_MANY;
	uint8_t *buf = emp_cf_alloc(cf, size);
	if (!buf)
		return -EMP_CF_E_NOMEM;
	uint8_t *p = buf;
	emp_cf_put16(p, code->max_stack);
	emp_cf_put16(p + 2, code->max_locals);
	emp_cf_put32(p + 4, code->code_len);
	memcpy(p + 8, code->code, code->code_len);
	p += 8 + code->code_len;
	emp_cf_put16(p, code->exc_count);
	p += 2;
	for (uint16_t i = 0; i < code->exc_count; i++, p += 8) {
		emp_cf_put16(p, code->exc[i].start_pc);
		emp_cf_put16(p + 2, code->exc[i].end_pc);
		emp_cf_put16(p + 4, code->exc[i].handler_pc);
		emp_cf_put16(p + 6, code->exc[i].catch_type);
	}
	p = put_attrs(p, code->attrs, code->attr_count);
	attr->data = buf;
	attr->len = (uint32_t)(p - buf);
	return 0;
}
