/* SPDX-License-Identifier: MIT */
/* classfile.h - bounds-checked Java class-file parser and writer (JVMS 4, major 45..69).
 *
 * Pure C11, no JVM dependency.  The parsed form keeps pointers into the caller's input buffer for every
 * structure it does not interpret (constant-pool entries, attributes), so parse -> write reproduces the
 * input byte for byte.  Anything the rewriter replaces or appends lives in memory owned by the
 * struct emp_classfile and is released by emp_cf_free().
 *
 * The input buffer must outlive the struct emp_classfile.  Nothing here is global: distinct class
 * files may be parsed and written concurrently from several threads.
 */
#ifndef EMP_CLASSFILE_H
#define EMP_CLASSFILE_H

#include <stddef.h>
#include <stdint.h>

/* Error codes: functions return 0 (or a positive index) on success and -EMP_CF_E_<name> on failure. */
#define EMP_CF_ERRORS(X)                                                                             \
	X(TRUNCATED, "truncated class file")                                                         \
	X(BAD_MAGIC, "bad magic number")                                                             \
	X(BAD_VERSION, "unsupported class file version")                                             \
	X(BAD_CONSTANT, "malformed constant pool")                                                   \
	X(BAD_INDEX, "constant pool index out of range or of the wrong kind")                        \
	X(TRAILING, "trailing bytes after the class file")                                           \
	X(BAD_CODE, "malformed Code attribute")                                                      \
	X(TOO_MANY, "a table or the constant pool would exceed its 16-bit limit")                    \
	X(NOMEM, "out of memory")

enum emp_cf_error {
	EMP_CF_OK = 0,
#define EMP_CF_X_ENUM(name, str) EMP_CF_E_##name,
	EMP_CF_ERRORS(EMP_CF_X_ENUM)
#undef EMP_CF_X_ENUM
	EMP_CF_NERRORS
};

/** emp_cf_strerror - text for an EMP_CF_E_* code (either sign); "unknown" for anything else. */
const char *emp_cf_strerror(int err);

/* Constant-pool tags (JVMS table 4.4-B). */
enum {
	EMP_CP_UTF8 = 1, EMP_CP_INTEGER = 3, EMP_CP_FLOAT = 4, EMP_CP_LONG = 5, EMP_CP_DOUBLE = 6,
	EMP_CP_CLASS = 7, EMP_CP_STRING = 8, EMP_CP_FIELDREF = 9, EMP_CP_METHODREF = 10,
	EMP_CP_IMETHODREF = 11, EMP_CP_NAME_AND_TYPE = 12, EMP_CP_METHOD_HANDLE = 15,
	EMP_CP_METHOD_TYPE = 16, EMP_CP_DYNAMIC = 17, EMP_CP_INVOKE_DYNAMIC = 18, EMP_CP_MODULE = 19,
	EMP_CP_PACKAGE = 20
};

/* Access flags used by the rewriter. */
enum {
	EMP_ACC_STATIC = 0x0008, EMP_ACC_SYNCHRONIZED = 0x0020, EMP_ACC_BRIDGE = 0x0040,
	EMP_ACC_NATIVE = 0x0100, EMP_ACC_INTERFACE = 0x0200, EMP_ACC_ABSTRACT = 0x0400,
	EMP_ACC_SYNTHETIC = 0x1000, EMP_ACC_MODULE = 0x8000
};

/* One constant-pool slot.  info points at the bytes after the tag (len of them).  The second slot of
 * a Long/Double has tag 0. */
struct emp_cf_const {
	const uint8_t *info;
	uint16_t len;
	uint8_t tag;
};

/* An attribute: name index and the len bytes of its body (after the 6-byte header). */
struct emp_cf_attr {
	uint16_t name_index;
	uint32_t len;
	const uint8_t *data;
};

/* A field or method. */
struct emp_cf_member {
	uint16_t access_flags, name_index, descriptor_index, attr_count;
	struct emp_cf_attr *attrs;
};

struct emp_cf_owned; /* list of buffers owned by the class file */

struct emp_classfile {
	uint16_t minor_version, major_version;
	uint16_t cp_count; /* as in the file: valid slots are 1 .. cp_count-1 */
	uint32_t cp_cap;
	struct emp_cf_const *cp;
	uint16_t access_flags, this_class, super_class;
	uint16_t interfaces_count;
	const uint8_t *interfaces; /* interfaces_count big-endian u2 */
	uint16_t fields_count, methods_count, attr_count;
	struct emp_cf_member *fields, *methods;
	struct emp_cf_attr *attrs;
	struct emp_cf_owned *owned;
};

/* One entry of a Code attribute's exception table. */
struct emp_cf_exc {
	uint16_t start_pc, end_pc, handler_pc, catch_type;
};

/* A Code attribute, decoded one level deep (its own attributes stay raw). */
struct emp_cf_code {
	uint16_t max_stack, max_locals;
	uint32_t code_len;
	const uint8_t *code;
	uint16_t exc_count, attr_count;
	struct emp_cf_exc *exc;     /* malloc'ed, see emp_cf_code_release() */
	struct emp_cf_attr *attrs;  /* malloc'ed */
};

/**
 * emp_cf_parse - parse a class file.
 * @buf, @len: the class bytes; must stay valid and unchanged while *@out is used.
 * @out: receives a new struct emp_classfile, freed by emp_cf_free().
 *
 * Every length and index read from @buf is checked against @len; malformed input yields an error,
 * never an out-of-bounds read.  Cross references are not resolved here (see emp_cf_utf8() etc.).
 * Return: 0, or -EMP_CF_E_TRUNCATED/BAD_MAGIC/BAD_VERSION/BAD_CONSTANT/TRAILING/NOMEM.
 */
int emp_cf_parse(const uint8_t *buf, size_t len, struct emp_classfile **out);

/** emp_cf_free - release a parsed class file and everything it owns.  NULL is a no-op. */
void emp_cf_free(struct emp_classfile *cf);

/** emp_cf_size - number of bytes emp_cf_write() will produce. */
size_t emp_cf_size(const struct emp_classfile *cf);

/**
 * emp_cf_write - serialise @cf into a new malloc'ed buffer.
 * Return: 0 with *@out (caller frees) and *@out_len set, or -EMP_CF_E_NOMEM.
 */
int emp_cf_write(const struct emp_classfile *cf, uint8_t **out, size_t *out_len);

/** emp_cf_alloc - zeroed memory that lives as long as @cf (freed by emp_cf_free()); NULL on OOM. */
void *emp_cf_alloc(struct emp_classfile *cf, size_t size);

/* --- constant pool look-ups; all return NULL/0 on an index that is out of range or of another kind --- */

/** emp_cf_utf8 - bytes of the Utf8 constant @idx (modified UTF-8, not NUL-terminated), length in *@len. */
const uint8_t *emp_cf_utf8(const struct emp_classfile *cf, uint32_t idx, uint16_t *len);
/** emp_cf_utf8_eq - 1 if Utf8 constant @idx equals the C string @s, else 0. */
int emp_cf_utf8_eq(const struct emp_classfile *cf, uint32_t idx, const char *s);
/** emp_cf_class_name - name bytes of the Class constant @idx (its Utf8), length in *@len. */
const uint8_t *emp_cf_class_name(const struct emp_classfile *cf, uint32_t idx, uint16_t *len);
/** emp_cf_u2 - the big-endian u2 at byte @at of constant @idx's info, 0 if out of range. */
uint16_t emp_cf_const_u2(const struct emp_classfile *cf, uint32_t idx, uint8_t tag, uint32_t at);

/* --- constant pool appends: each returns the index of an equal existing entry or of a new one
 *     (> 0), or -EMP_CF_E_TOO_MANY (pool full) / -EMP_CF_E_NOMEM / -EMP_CF_E_BAD_INDEX --- */
int emp_cf_add_utf8(struct emp_classfile *cf, const char *s, size_t len);
int emp_cf_add_class(struct emp_classfile *cf, const char *name, size_t len);
int emp_cf_add_name_and_type(struct emp_classfile *cf, const char *name, const char *desc);
int emp_cf_add_methodref(struct emp_classfile *cf, const char *klass, const char *name, const char *desc);
int emp_cf_add_integer(struct emp_classfile *cf, int32_t value);

/** emp_cf_find_attr - index of the first attribute named @name in @attrs[0..n), or -1. */
int emp_cf_find_attr(const struct emp_classfile *cf, const struct emp_cf_attr *attrs, uint16_t n,
		     const char *name);

/**
 * emp_cf_code_parse - decode a Code attribute body.
 * Checks code_length (1..65535), the exception table and the nested attribute headers against the
 * attribute's length (which must be used exactly).  Exception-table pcs are not validated here.
 * Return: 0 (release with emp_cf_code_release()), -EMP_CF_E_BAD_CODE or -EMP_CF_E_NOMEM.
 */
int emp_cf_code_parse(const struct emp_cf_attr *attr, struct emp_cf_code *code);
/** emp_cf_code_release - free the arrays of a decoded Code attribute (not the code bytes). */
void emp_cf_code_release(struct emp_cf_code *code);
/**
 * emp_cf_code_encode - serialise @code into memory owned by @cf and point @attr (name index kept by
 * the caller) at it.  Return: 0, -EMP_CF_E_TOO_MANY (body over 4 GiB) or -EMP_CF_E_NOMEM.
 */
int emp_cf_code_encode(struct emp_classfile *cf, const struct emp_cf_code *code, struct emp_cf_attr *attr);

/* Big-endian helpers shared with the rewriter. */
static inline uint16_t emp_cf_be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t emp_cf_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline void emp_cf_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void emp_cf_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

#endif /* EMP_CLASSFILE_H */
