/* SPDX-License-Identifier: MIT */
/* test_vmstructs.c - the JVM structure tables (agent/sample/vmstructs.c) read from tables of our own, laid out as
 * HotSpot lays out gHotSpotVMStructs/Types/IntConstants but with offsets and field widths of our choosing (so that
 * a reader that hard-coded a JDK's offsets, or read a field at the wrong width, fails): a complete table, a missing
 * field named, a code heap whose segment map leads to a blob, Method* to jmethodID through the class's cache (and
 * a Method* that is not among the class's methods refused), a thread's frame anchor; for continuations, VM flags,
 * narrow oops, an instance size from a class mirror, the thread's Thread objects, and an nmethod's Java methods at
 * a return address from its PcDescs and scope descriptors (multi-byte UNSIGNED5 offsets, an inlined chain, a
 * deoptimized frame's original pc, bad indexes refused). */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vmstructs.h"

struct field_entry {
	const char *type, *field, *type_string;
	int32_t is_static;
	uint64_t offset;
	void *address;
};
struct type_entry {
	const char *name, *super;
	int32_t is_oop, is_int, is_unsigned;
	uint64_t size;
};
struct int_entry {
	const char *name;
	int32_t value;
};

/* The fake VM.  Layouts (offsets) deliberately unlike any JDK's. */
struct vspace { char *low_boundary, *high_boundary, *low, *high; };
struct heap { char pad[8]; struct vspace memory; struct vspace segmap; int32_t log2; };
struct garray { int32_t len, cap; struct heap **data; };
struct blob {           /* CodeBlob + nmethod fields */
	int64_t pad0;
	const char *name;   /* 8 */
	int32_t size;       /* 16 */
	int16_t frame_complete; /* 20 */
	int16_t pad1;
	int32_t frame_size; /* 24 */
	int32_t code_offset; /* 28 */
	int32_t data_offset; /* 32 */
	uint16_t verified_entry; /* 36 */
	int16_t pad2;
	int32_t stub_offset; /* 40 */
	int32_t pad3;
	void *method;       /* 48 */
};
struct method { void *pad; void *const_method; };
struct const_method { void *pad; void *constants; char pad2[8]; uint16_t idnum; };
struct cpool { char pad[40]; void *holder; };
struct klass { char pad[16]; void *methods; void *ids; };
struct thread {
	char pad[8];
	int32_t state;
	int32_t pad2;
	uintptr_t anchor_sp, anchor_fp, anchor_pc;
	uintptr_t *thread_obj, *vthread; /* OopHandles: each the address of a slot holding the object */
};
/* nmethod fields the continuation queries read, past the code (in the blob's data section, offset 304) */
struct nm_tail {
	const uint8_t *immutable;  /* 304 */
	const uint8_t *mutable_data; /* 312 */
	int32_t pcs_offset, scopes_offset, imm_size, deopt, deopt_mh, orig_pc, mutable_size, reloc_size; /* 320.. */
};
#define NM_TAIL 304
struct flag { void *addr; const char *name; int64_t pad; }; /* JVMFlag: 24 bytes */
static int32_t klass_offset_var = 16;     /* java_lang_Class::_klass_offset */
static uintptr_t oop_base_var = 0x800000000; /* CompressedOops::_base */
static int32_t oop_shift_var = 3;
static uint8_t zgc_value, coops_value = 1;
static struct flag flag_list[3] = { { &zgc_value, "UseZGC", 0 }, { &coops_value, "UseCompressedOops", 0 }, { 0 } };
static struct flag *flags_var = flag_list;
static size_t nflags_var = 3;

static struct garray *heaps_var;
static uintptr_t low_bound, high_bound;

#define F(t, f, ts, off) { t, f, ts, 0, off, NULL }
#define S(t, f, ts, addr) { t, f, ts, 1, 0, addr }
static struct field_entry fields[] = {
	S("CodeCache", "_heaps", "GrowableArray<CodeHeap*>*", &heaps_var),
	S("CodeCache", "_low_bound", "address", &low_bound),
	S("CodeCache", "_high_bound", "address", &high_bound),
	F("GrowableArrayBase", "_len", "int", offsetof(struct garray, len)),
	F("GrowableArray<int>", "_data", "int*", offsetof(struct garray, data)),
	F("CodeHeap", "_memory", "VirtualSpace", offsetof(struct heap, memory)),
	F("CodeHeap", "_segmap", "VirtualSpace", offsetof(struct heap, segmap)),
	F("CodeHeap", "_log2_segment_size", "int", offsetof(struct heap, log2)),
	F("VirtualSpace", "_low", "char*", offsetof(struct vspace, low)),
	F("VirtualSpace", "_high", "char*", offsetof(struct vspace, high)),
	F("HeapBlock", "_header", "HeapBlock::Header", 0),
	F("HeapBlock::Header", "_used", "bool", 12),
	F("CodeBlob", "_name", "const char*", offsetof(struct blob, name)),
	F("CodeBlob", "_size", "int", offsetof(struct blob, size)),
	F("CodeBlob", "_frame_complete_offset", "int16_t", offsetof(struct blob, frame_complete)),
	F("CodeBlob", "_frame_size", "int", offsetof(struct blob, frame_size)),
	F("CodeBlob", "_code_offset", "int", offsetof(struct blob, code_offset)),
	F("CodeBlob", "_data_offset", "int", offsetof(struct blob, data_offset)),
	F("nmethod", "_method", "Method*", offsetof(struct blob, method)),
	F("nmethod", "_verified_entry_offset", "u2", offsetof(struct blob, verified_entry)),
	F("nmethod", "_stub_offset", "int", offsetof(struct blob, stub_offset)),
	F("Method", "_constMethod", "ConstMethod*", offsetof(struct method, const_method)),
	F("ConstMethod", "_constants", "ConstantPool*", offsetof(struct const_method, constants)),
	F("ConstMethod", "_method_idnum", "u2", offsetof(struct const_method, idnum)),
	F("ConstantPool", "_pool_holder", "InstanceKlass*", offsetof(struct cpool, holder)),
	F("InstanceKlass", "_methods", "Array<Method*>*", offsetof(struct klass, methods)),
	F("InstanceKlass", "_methods_jmethod_ids", "jmethodID*", offsetof(struct klass, ids)),
	F("Array<int>", "_length", "int", 0),
	F("Array<Method*>", "_data", NULL, 8),
	F("JavaThread", "_thread_state", "JavaThreadState", offsetof(struct thread, state)),
	F("JavaThread", "_anchor", "JavaFrameAnchor", offsetof(struct thread, anchor_sp)),
	F("JavaFrameAnchor", "_last_Java_sp", "intptr_t*", 0),
	F("JavaFrameAnchor", "_last_Java_fp", "intptr_t*", 8),
	F("JavaFrameAnchor", "_last_Java_pc", "address", 16),
	F("JavaThread", "_threadObj", "OopHandle", offsetof(struct thread, thread_obj)),
	F("JavaThread", "_vthread", "OopHandle", offsetof(struct thread, vthread)),
	F("nmethod", "_immutable_data", "address", NM_TAIL + offsetof(struct nm_tail, immutable)),
	F("CodeBlob", "_mutable_data", "address", NM_TAIL + offsetof(struct nm_tail, mutable_data)),
	F("nmethod", "_scopes_pcs_offset", "int", NM_TAIL + offsetof(struct nm_tail, pcs_offset)),
	F("nmethod", "_scopes_data_offset", "int", NM_TAIL + offsetof(struct nm_tail, scopes_offset)),
	F("nmethod", "_immutable_data_size", "int", NM_TAIL + offsetof(struct nm_tail, imm_size)),
	F("nmethod", "_deopt_handler_offset", "int", NM_TAIL + offsetof(struct nm_tail, deopt)),
	F("nmethod", "_deopt_mh_handler_offset", "int", NM_TAIL + offsetof(struct nm_tail, deopt_mh)),
	F("nmethod", "_orig_pc_offset", "int", NM_TAIL + offsetof(struct nm_tail, orig_pc)),
	F("CodeBlob", "_mutable_data_size", "int", NM_TAIL + offsetof(struct nm_tail, mutable_size)),
	F("CodeBlob", "_relocation_size", "int", NM_TAIL + offsetof(struct nm_tail, reloc_size)),
	F("PcDesc", "_pc_offset", "int", 4),
	F("PcDesc", "_scope_decode_offset", "int", 8),
	S("java_lang_Class", "_klass_offset", "int", &klass_offset_var),
	F("Klass", "_layout_helper", "jint", 12),
	S("CompressedOops", "_base", "address", &oop_base_var),
	S("CompressedOops", "_shift", "int", &oop_shift_var),
	S("JVMFlag", "flags", "JVMFlag*", &flags_var),
	S("JVMFlag", "numFlags", "size_t", &nflags_var),
	F("JVMFlag", "_name", "const char*", offsetof(struct flag, name)),
	F("JVMFlag", "_addr", NULL, offsetof(struct flag, addr)),
	{ NULL, NULL, NULL, 0, 0, NULL },
};
static struct type_entry types[] = {
	{ "HeapBlock", NULL, 0, 0, 0, 24 }, { "int", NULL, 0, 1, 0, 4 },   { "u2", NULL, 0, 1, 1, 2 },
	{ "int16_t", NULL, 0, 1, 0, 2 },   { "bool", NULL, 0, 1, 1, 1 },  { "address", NULL, 0, 0, 0, 8 },
	{ "VirtualSpace", NULL, 0, 0, 0, 32 }, { "JavaFrameAnchor", NULL, 0, 0, 0, 24 },
	{ "PcDesc", NULL, 0, 0, 0, 20 },   { "JVMFlag", NULL, 0, 0, 0, sizeof(struct flag) }, { "jint", NULL, 0, 1, 0, 4 },
	{ NULL, NULL, 0, 0, 0, 0 },
};
static struct int_entry ints[] = { { "_thread_in_vm", 6 }, { "frame::interpreter_frame_sender_sp_offset", -1 },
				   { "frame::interpreter_frame_last_sp_offset", -2 }, { NULL, 0 } };

static struct field_entry *fields_p = fields;
static struct type_entry *types_p = types;
static struct int_entry *ints_p = ints;
static uint64_t layout[] = {
	sizeof(struct field_entry), offsetof(struct field_entry, type), offsetof(struct field_entry, field),
	offsetof(struct field_entry, type_string), offsetof(struct field_entry, is_static),
	offsetof(struct field_entry, offset), offsetof(struct field_entry, address),
	sizeof(struct type_entry), offsetof(struct type_entry, name), offsetof(struct type_entry, size),
	sizeof(struct int_entry), offsetof(struct int_entry, name), offsetof(struct int_entry, value),
};
static const char *const layout_names[] = {
	"gHotSpotVMStructEntryArrayStride", "gHotSpotVMStructEntryTypeNameOffset",
	"gHotSpotVMStructEntryFieldNameOffset", "gHotSpotVMStructEntryTypeStringOffset",
	"gHotSpotVMStructEntryIsStaticOffset", "gHotSpotVMStructEntryOffsetOffset",
	"gHotSpotVMStructEntryAddressOffset", "gHotSpotVMTypeEntryArrayStride", "gHotSpotVMTypeEntryTypeNameOffset",
	"gHotSpotVMTypeEntrySizeOffset", "gHotSpotVMIntConstantEntryArrayStride",
	"gHotSpotVMIntConstantEntryNameOffset", "gHotSpotVMIntConstantEntryValueOffset",
};

static void *lookup(const char *name)
{
	if (!strcmp(name, "gHotSpotVMStructs"))
		return &fields_p;
	if (!strcmp(name, "gHotSpotVMTypes"))
		return &types_p;
	if (!strcmp(name, "gHotSpotVMIntConstants"))
		return &ints_p;
	for (size_t i = 0; i < sizeof(layout_names) / sizeof(layout_names[0]); i++)
		if (!strcmp(name, layout_names[i]))
			return &layout[i];
	return NULL;
}

static void *no_symbols(const char *name)
{
	(void)name;
	return NULL;
}

Test(vmstructs, complete_tables)
{
	char what[160] = "x";
	cr_assert_eq(emp_vmstructs_init_with(lookup, what, sizeof(what)), 1);
	cr_assert_str_empty(what);
}

Test(vmstructs, missing_symbols_and_fields_are_named)
{
	char what[160];
	cr_assert_eq(emp_vmstructs_init_with(no_symbols, what, sizeof(what)), 0);
	cr_assert_str_eq(what, "this JVM exports no gHotSpotVMStructs tables");
	fields[20].type = "nmethod_renamed"; /* nmethod::_stub_offset */
	cr_assert_eq(emp_vmstructs_init_with(lookup, what, sizeof(what)), 0);
	cr_assert_str_eq(what, "nmethod::_stub_offset is not in this JVM's gHotSpotVMStructs");
	cr_assert_eq(emp_vmstructs_blob(0x1000, &(struct emp_vm_blob){ 0 }), -1); /* queries are off */
	fields[20].type = "nmethod";
	fields[26].field = "_methods_jmethod_ids_renamed"; /* only the method query is off */
	cr_assert_eq(emp_vmstructs_init_with(lookup, what, sizeof(what)), 1);
	cr_assert_str_eq(what, "InstanceKlass::_methods_jmethod_ids is not in this JVM's gHotSpotVMStructs");
	fields[26].field = "_methods_jmethod_ids";
}

/* One code heap of 64 segments of 64 bytes; a used block over segments 4..9 holding an nmethod. */
static _Alignas(64) char memory[64 * 64];
static uint8_t segmap[64];
static struct heap heap;
static struct heap *heap_list[1] = { &heap };
static struct garray heaps = { 1, 1, heap_list };

static struct blob *setup_heap(void)
{
	heap.memory = (struct vspace){ memory, memory + sizeof(memory), memory, memory + sizeof(memory) };
	heap.segmap = (struct vspace){ (char *)segmap, (char *)segmap + 64, (char *)segmap, (char *)segmap + 64 };
	heap.log2 = 6;
	heaps_var = &heaps;
	low_bound = (uintptr_t)memory;
	high_bound = (uintptr_t)memory + sizeof(memory);
	memset(segmap, 0xff, sizeof(segmap));
	for (int i = 4; i < 10; i++)
		segmap[i] = (uint8_t)(i - 4);
	char *block = memory + 4 * 64;
	block[12] = 1;                               /* HeapBlock::Header::_used */
	struct blob *b = (struct blob *)(block + 24); /* after the 24-byte HeapBlock */
	*b = (struct blob){ .name = "nmethod", .size = 6 * 64 - 24, .frame_complete = -3 + 40, .frame_size = 4,
			    .code_offset = 64, .data_offset = 300, .verified_entry = 16, .stub_offset = 280 };
	return b;
}

Test(vmstructs, code_blob_from_the_segment_map)
{
	char what[160];
	cr_assert_eq(emp_vmstructs_init_with(lookup, what, sizeof(what)), 1);
	struct blob *fake = setup_heap();
	uintptr_t code = (uintptr_t)fake + 64;
	struct emp_vm_blob b;
	cr_assert_eq(emp_vmstructs_blob(code + 200, &b), 0); /* segment 8: back to segment 4 */
	cr_assert_eq(b.blob, (uintptr_t)fake);
	cr_assert_eq(b.code_begin, code);
	cr_assert_eq(b.code_end, (uintptr_t)fake + 300);
	cr_assert_eq(b.frame_size, 4);
	cr_assert_eq(b.frame_complete, 37);
	cr_assert_eq(b.is_nmethod, 1);
	cr_assert_eq(b.verified_entry, 16);
	cr_assert_eq(b.stub, 280 - 64);
	cr_assert_str_eq(b.name, "nmethod");
	cr_assert_eq(emp_vmstructs_blob(code - 1, &b), -1);             /* the blob's header, not its code */
	cr_assert_eq(emp_vmstructs_blob((uintptr_t)memory + 64, &b), -1); /* a free segment */
	cr_assert_eq(emp_vmstructs_blob((uintptr_t)memory + sizeof(memory), &b), -1); /* outside the code cache */
	fake->name = "I2C/C2I adapters";
	cr_assert_eq(emp_vmstructs_blob(code, &b), 0);
	cr_assert(!b.is_nmethod && b.is_adapter && !b.method);
	memory[4 * 64 + 12] = 0; /* the block was freed */
	cr_assert_eq(emp_vmstructs_blob(code, &b), -1);
}

Test(vmstructs, method_id_through_the_class_cache)
{
	char what[160];
	cr_assert_eq(emp_vmstructs_init_with(lookup, what, sizeof(what)), 1);
	static struct method m, other;
	static struct const_method cm, other_cm;
	static struct cpool cp;
	static struct klass k;
	static struct { int64_t len; void *m[3]; } methods;
	static uintptr_t ids[4] = { 3, 0x111, 0x222, 0x333 };
	m.const_method = &cm;
	cm.constants = &cp;
	cm.idnum = 2;
	cp.holder = &k;
	k.methods = &methods;
	k.ids = ids;
	methods.len = 3;
	methods.m[0] = &other;
	methods.m[2] = &m;
	cr_assert_eq((uintptr_t)emp_vmstructs_method_id((uintptr_t)&m), 0x333);
	methods.m[2] = NULL;
	methods.m[1] = &m; /* not at its idnum: found by the search */
	cr_assert_eq((uintptr_t)emp_vmstructs_method_id((uintptr_t)&m), 0x333);
	methods.m[1] = NULL; /* not one of the class's methods (an old version, a wrong pointer) */
	cr_assert_null(emp_vmstructs_method_id((uintptr_t)&m));
	other.const_method = &other_cm;
	other_cm.constants = &cp;
	other_cm.idnum = 3; /* beyond the cache's length */
	cr_assert_null(emp_vmstructs_method_id((uintptr_t)&other));
	cr_assert_null(emp_vmstructs_method_id(0));
}

Test(vmstructs, frame_anchor)
{
	char what[160];
	cr_assert_eq(emp_vmstructs_init_with(lookup, what, sizeof(what)), 1);
	struct thread t = { .state = 6, .anchor_sp = 0x7000, .anchor_fp = 0x7100, .anchor_pc = 0 };
	struct emp_vm_anchor a;
	cr_assert_eq(emp_vmstructs_anchor((uintptr_t)&t, &a), 0);
	cr_assert_eq(a.in_vm, 1);
	cr_assert_eq(a.sp, 0x7000);
	cr_assert_eq(a.fp, 0x7100);
	cr_assert_eq(a.pc, 0);
	cr_assert_eq(a.pc_slot, &t.anchor_pc);
	cr_assert_eq(a.sp_slot, &t.anchor_sp);
	t.state = 8; /* _thread_in_Java */
	cr_assert_eq(emp_vmstructs_anchor((uintptr_t)&t, &a), 0);
	cr_assert_eq(a.in_vm, 0);
	cr_assert_eq(emp_vmstructs_interpreter_sender_sp(), -1);
}

Test(vmstructs, continuation_queries)
{
	char what[160];
	cr_assert_eq(emp_vmstructs_init_with(lookup, what, sizeof(what)), 1);
	cr_assert_str_empty(what);
	cr_assert_eq(emp_vmstructs_cont_ok(), 1);
	int v = -1;
	cr_assert_eq(emp_vmstructs_flag("UseZGC", &v), 0);
	cr_assert_eq(v, 0);
	cr_assert_eq(emp_vmstructs_flag("UseCompressedOops", &v), 0);
	cr_assert_eq(v, 1);
	cr_assert_eq(emp_vmstructs_flag("UseShenandoahGC", &v), -1);
	uintptr_t base;
	int shift;
	emp_vmstructs_narrow_oops(&base, &shift);
	cr_assert_eq(base, 0x800000000);
	cr_assert_eq(shift, 3);
	/* a mirror whose klass field (at java_lang_Class::_klass_offset) leads to a layout helper of 41: 40 bytes */
	static struct { char pad[12]; int32_t lh; } klass = { .lh = 41 };
	static uintptr_t mirror[4];
	mirror[2] = (uintptr_t)&klass;
	cr_assert_eq(emp_vmstructs_instance_size((uintptr_t)mirror), 40);
	klass.lh = -5; /* an array class */
	cr_assert_eq(emp_vmstructs_instance_size((uintptr_t)mirror), -1);
	cr_assert_eq(emp_vmstructs_interpreter_method(), -3);
	cr_assert_eq(emp_vmstructs_interpreter_locals(), -7);
	uintptr_t carrier = 0x1230, vthread = 0x4560;
	struct thread t = { .thread_obj = &carrier, .vthread = &vthread };
	cr_assert_eq(emp_vmstructs_thread_oop((uintptr_t)&t, 0), 0x1230);
	cr_assert_eq(emp_vmstructs_thread_oop((uintptr_t)&t, 1), 0x4560);
	struct field_entry *vt = fields;
	while (strcmp(vt->field, "_vthread"))
		vt++;
	vt->field = "_vthread_renamed"; /* JavaThread::_vthread missing: only the continuation queries go */
	cr_assert_eq(emp_vmstructs_init_with(lookup, what, sizeof(what)), 1);
	cr_assert_eq(emp_vmstructs_cont_ok(), 0);
	cr_assert_eq(emp_vmstructs_thread_oop((uintptr_t)&t, 0), 0);
	vt->field = "_vthread";
}

/* The immutable data of the fake nmethod: three PcDescs (20 bytes each: pad, pc offset, decode offset, pad), then
 * the scopes: a top scope at 1 (method 1), an inlined scope at 200 (method 3, its sender at 1), one with method
 * index 0 at 210, and one with an index past the metadata at 215. */
static uint8_t immutable[512];
static void *mutable_area[2 + 3]; /* 16 bytes of relocations, then the metadata: Method* 1, 2, 3 */

static void put_pcdesc(int i, int32_t pc, int32_t decode)
{
	memcpy(immutable + 20 * i + 4, &pc, 4);
	memcpy(immutable + 20 * i + 8, &decode, 4);
}

Test(vmstructs, scopes_at_a_return_address)
{
	char what[160];
	cr_assert_eq(emp_vmstructs_init_with(lookup, what, sizeof(what)), 1);
	struct blob *fake = setup_heap();
	struct nm_tail *tail = (struct nm_tail *)((char *)fake + NM_TAIL);
	fake->method = (void *)0x9000; /* the nmethod's own method */
	memset(immutable, 0, sizeof(immutable));
	put_pcdesc(0, 10, 0);
	put_pcdesc(1, 20, 1);
	put_pcdesc(2, 30, 200);
	put_pcdesc(3, 40, 210);
	put_pcdesc(4, 50, 215);
	uint8_t *scopes = immutable + 100;
	/* UNSIGNED5: a value v < 191 is the byte v + 1; 200 is 201, 1 (200 - 191 = 9: 1 + 191 + 9, then 0 + 1) */
	memcpy(scopes + 1, (uint8_t[]){ 1, 2, 6, 1, 1, 1 }, 6);      /* sender 0, method 1, bci 5, 3 offsets 0 */
	memcpy(scopes + 200, (uint8_t[]){ 2, 4, 3, 1, 1, 1 }, 6);    /* sender 1, method 3 */
	memcpy(scopes + 210, (uint8_t[]){ 1, 1, 1, 1, 1, 1 }, 6);    /* method index 0: invalid */
	memcpy(scopes + 215, (uint8_t[]){ 1, 5, 1, 1, 1, 1 }, 6);    /* method index 4: past the metadata */
	*tail = (struct nm_tail){ .immutable = immutable, .mutable_data = (const uint8_t *)mutable_area,
				  .pcs_offset = 0, .scopes_offset = 100, .imm_size = 100 + 230, .deopt = 290,
				  .deopt_mh = 291, .orig_pc = 8, .mutable_size = 16 + 24, .reloc_size = 16 };
	mutable_area[2] = (void *)0x1001;
	mutable_area[3] = (void *)0x1002;
	mutable_area[4] = (void *)0x1003;
	struct emp_vm_blob b;
	uintptr_t code = (uintptr_t)fake + 64, m[4];
	cr_assert_eq(emp_vmstructs_blob(code + 20, &b), 0);
	cr_assert_eq(emp_vmstructs_scopes(&b, code + 20, 0, m, 4), 1);
	cr_assert_eq(m[0], 0x1001);
	cr_assert_eq(emp_vmstructs_scopes(&b, code + 30, 0, m, 4), 2, "inlined: the innermost first");
	cr_assert_eq(m[0], 0x1003);
	cr_assert_eq(m[1], 0x1001);
	cr_assert_eq(emp_vmstructs_scopes(&b, code + 30, 0, m, 1), -1, "deeper than max");
	cr_assert_eq(emp_vmstructs_scopes(&b, code + 10, 0, m, 4), 1, "no debug information: the nmethod's method");
	cr_assert_eq(m[0], 0x9000);
	cr_assert_eq(emp_vmstructs_scopes(&b, code + 25, 0, m, 4), -1, "no PcDesc at this pc");
	cr_assert_eq(emp_vmstructs_scopes(&b, code + 40, 0, m, 4), -1, "method index 0");
	cr_assert_eq(emp_vmstructs_scopes(&b, code + 50, 0, m, 4), -1, "method index past the metadata");
	/* deoptimized: the return address is the deopt handler, the original pc at sp + orig_pc_offset */
	uintptr_t frame[2] = { 0, code + 30 };
	cr_assert_eq(emp_vmstructs_scopes(&b, (uintptr_t)fake + 290, (uintptr_t)frame, m, 4), 2);
	cr_assert_eq(m[0], 0x1003);
	tail->imm_size = 100 + 201; /* the inlined scope's method index lies past the immutable data */
	cr_assert_eq(emp_vmstructs_scopes(&b, code + 30, 0, m, 4), -1);
}
