/* SPDX-License-Identifier: MIT */
/* vmstructs.c - HotSpot's structure tables (see vmstructs.h).
 *
 * The tables.  libjvm exports gHotSpotVMStructs (type, field, type string, static?, offset, address), gHotSpotVMTypes
 * (type, superclass, size, ...), and for each the layout of its entries (gHotSpotVM*EntryXxxOffset, ...ArrayStride);
 * a NULL type name ends a table.  They are constant data, initialised statically, so they can be read in
 * Agent_OnLoad before the VM has started.  We look up each field we need by "Type::field", take its offset, and take
 * its width from its type string (so that JDK 25's int16_t _frame_complete_offset and JDK 17's int are both read
 * right); where HotSpot renamed or moved a field between releases, each spelling is tried (JDK 17: CodeBlob's
 * _code_begin pointer, CompiledMethod::_method, nmethod::_verified_entry_point; JDK 21+: _code_offset,
 * nmethod::_method, _verified_entry_offset).
 *
 * The code cache.  CodeCache::_heaps is a GrowableArray of CodeHeap*; a CodeHeap reserves [_memory._low,
 * _memory._high) in segments of 2^_log2_segment_size bytes, and its segment map (_segmap._low: one byte per segment)
 * holds 0xff for an unused segment, 0 for a block's first segment, else the distance to step back towards it
 * (HotSpot's CodeHeap::find_start, read, not copied).  A block is a HeapBlock header (_used) followed by the blob.
 *
 * Method* to jmethodID.  Method::_constMethod -> ConstMethod::_constants -> ConstantPool::_pool_holder (the
 * InstanceKlass) -> InstanceKlass::_methods_jmethod_ids, an array whose word 0 is its length and word idnum + 1 the
 * jmethodID of the method with ConstMethod::_method_idnum idnum (as InstanceKlass::get_jmethod_id reads it).
 *
 * The frame anchor.  JavaThread::_anchor (a JavaFrameAnchor: _last_Java_sp, _fp, _pc) and JavaThread::_thread_state,
 * compared with the int constant _thread_in_vm (gHotSpotVMIntConstants).
 */
#include "vmstructs.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "dump.h"

/* A field: offset in its object (or address, for a static) and width in bytes; size 0 = not in the tables. */
struct field {
	uintptr_t off;
	uint8_t size;
	uint8_t is_signed;
};

static struct {
	int code_ok, method_ok, anchor_ok;       /* which queries are on */
	uintptr_t heaps_addr, low_bound_addr, high_bound_addr; /* statics: the variables' addresses */
	struct field ga_len, ga_data;            /* GrowableArrayBase::_len, GrowableArray<E>::_data */
	struct field heap_memory, heap_segmap, heap_log2; /* CodeHeap */
	struct field vs_low, vs_high;            /* VirtualSpace */
	uintptr_t heapblock_size;
	struct field block_used;                 /* HeapBlock::_header + Header::_used */
	struct field blob_name, blob_size, blob_frame_complete, blob_frame_size, blob_code_begin, blob_code_end,
		blob_code_offset, blob_data_offset;
	struct field nm_method, nm_verified_entry_point, nm_verified_entry_offset, nm_stub_offset;
	struct field method_const, const_constants, const_idnum, cp_holder, ik_jmethod_ids, ik_methods;
	struct field array_len, array_data;      /* Array<int>::_length, Array<Method*>::_data */
	int64_t sender_sp_offset;                /* frame::interpreter_frame_sender_sp_offset */
	uintptr_t call_stub_return_addr;         /* &StubRoutines::_call_stub_return_address, 0 unknown */
	struct field thread_state, thread_anchor, anchor_sp, anchor_fp, anchor_pc;
	int64_t thread_in_vm;                    /* JavaThreadState _thread_in_vm */
	/* thread states for clock=wall (emp_vmstructs_thread_state) */
	int state_ok;
	struct field thread_osthread, osthread_state; /* JavaThread::_osthread, OSThread::_state */
	int64_t thread_in_native, os_monitor_wait, os_condvar_wait, os_object_wait, os_sleeping;
	/* continuations (JDK 24+ layout; see emp_vmstructs_cont_init) */
	int cont_ok;
	struct field thread_obj, thread_vthread;  /* JavaThread::_threadObj, _vthread (OopHandles) */
	struct field nm_immutable, nm_pcs_offset, nm_scopes_offset, nm_deopt_handler, nm_orig_pc;
	struct field blob_mutable, blob_mutable_size, blob_reloc_size;
	struct field nm_immutable_size, nm_deopt_mh_handler;
	struct field pc_offset, pc_scope;          /* PcDesc::_pc_offset, _scope_decode_offset */
	int64_t last_sp_offset;                    /* frame::interpreter_frame_last_sp_offset */
	uintptr_t pcdesc_size;
	uintptr_t mirror_klass_addr;              /* &java_lang_Class::_klass_offset */
	struct field klass_layout;                /* Klass::_layout_helper */
	uintptr_t oop_base_addr, oop_shift_addr;  /* &CompressedOops::_base, _shift (either spelling) */
	uintptr_t flags_addr, nflags_addr;        /* &JVMFlag::flags, &JVMFlag::numFlags */
	struct field flag_name, flag_addr;
	uintptr_t flag_size;
} vm;

/* --- reading the tables (Agent_OnLoad) --- */

struct table {
	const char *base;
	uint64_t stride, type_name, field_name, type_string, is_static, offset, address, size, value;
};

static uint64_t sym_u64(void *(*lookup)(const char *), const char *name, int *ok)
{
	const uint64_t *p = lookup(name);
	if (!p)
		*ok = 0;
	return p ? *p : 0;
}

static const char *str_at(const char *entry, uint64_t off)
{
	const char *s;
	memcpy(&s, entry + off, sizeof(s));
	return s;
}

/* The size of a type named @t in the types table (pointers are 8), 0 when it is not there. */
static uint64_t type_size(const struct table *types, const char *t)
{
	size_t n = strlen(t);
	if (n && t[n - 1] == '*')
		return sizeof(void *);
	for (const char *e = types->base; e && str_at(e, types->type_name); e += types->stride)
		if (!strcmp(str_at(e, types->type_name), t)) {
			uint64_t size;
			memcpy(&size, e + types->size, sizeof(size));
			return size;
		}
	return 0;
}

/* Field @type::@name of the structs table; a static's address in f.off.  Not found: size 0. */
static struct field find_field(const struct table *structs, const struct table *types, const char *type,
			       const char *name)
{
	struct field f = { 0 };
	for (const char *e = structs->base; e && str_at(e, structs->type_name); e += structs->stride) {
		if (strcmp(str_at(e, structs->type_name), type) || strcmp(str_at(e, structs->field_name), name))
			continue;
		int32_t is_static;
		memcpy(&is_static, e + structs->is_static, sizeof(is_static));
		const char *ts = str_at(e, structs->type_string);
		if (is_static) {
			void *addr;
			memcpy(&addr, e + structs->address, sizeof(addr));
			f.off = (uintptr_t)addr;
		} else {
			uint64_t off;
			memcpy(&off, e + structs->offset, sizeof(off));
			f.off = (uintptr_t)off;
		}
		/* a field whose type is a struct (VirtualSpace, JavaFrameAnchor) is used for its offset only: size 1 */
		uint64_t size = ts ? type_size(types, ts) : 0;
		f.size = size == 2 || size == 4 || size == 8 ? (uint8_t)size : 1;
		f.is_signed = ts && (!strcmp(ts, "int") || !strcmp(ts, "int16_t") || !strcmp(ts, "jint"));
		break;
	}
	return f;
}

/* The int constant @name (gHotSpotVMIntConstants) into *@value.  Return: 1, or 0 when there is none. */
static int int_constant(const struct table *ints, const char *name, int64_t *value)
{
	for (const char *e = ints->base; e && str_at(e, ints->type_name); e += ints->stride)
		if (!strcmp(str_at(e, ints->type_name), name)) {
			int32_t v;
			memcpy(&v, e + ints->value, sizeof(v));
			*value = v;
			return 1;
		}
	return 0;
}

static void *lookup_libjvm(const char *name)
{
	return dlsym(RTLD_DEFAULT, name);
}

int emp_vmstructs_init(char *what, size_t whatlen)
{
	return emp_vmstructs_init_with(lookup_libjvm, what, whatlen);
}

int emp_vmstructs_init_with(void *(*lookup)(const char *name), char *what, size_t whatlen)
{
	memset(&vm, 0, sizeof(vm));
	int ok = 1;
	struct table st = { 0 }, ty = { 0 }, in = { 0 };
	const char *const *sbase = lookup("gHotSpotVMStructs");
	const char *const *tbase = lookup("gHotSpotVMTypes");
	st.stride = sym_u64(lookup, "gHotSpotVMStructEntryArrayStride", &ok);
	st.type_name = sym_u64(lookup, "gHotSpotVMStructEntryTypeNameOffset", &ok);
	st.field_name = sym_u64(lookup, "gHotSpotVMStructEntryFieldNameOffset", &ok);
	st.type_string = sym_u64(lookup, "gHotSpotVMStructEntryTypeStringOffset", &ok);
	st.is_static = sym_u64(lookup, "gHotSpotVMStructEntryIsStaticOffset", &ok);
	st.offset = sym_u64(lookup, "gHotSpotVMStructEntryOffsetOffset", &ok);
	st.address = sym_u64(lookup, "gHotSpotVMStructEntryAddressOffset", &ok);
	ty.stride = sym_u64(lookup, "gHotSpotVMTypeEntryArrayStride", &ok);
	ty.type_name = sym_u64(lookup, "gHotSpotVMTypeEntryTypeNameOffset", &ok);
	ty.size = sym_u64(lookup, "gHotSpotVMTypeEntrySizeOffset", &ok);
	in.stride = sym_u64(lookup, "gHotSpotVMIntConstantEntryArrayStride", &ok);
	in.type_name = sym_u64(lookup, "gHotSpotVMIntConstantEntryNameOffset", &ok);
	in.value = sym_u64(lookup, "gHotSpotVMIntConstantEntryValueOffset", &ok);
	const char *const *ibase = lookup("gHotSpotVMIntConstants");
	*what = 0;
	if (!sbase || !tbase || !ibase || !*sbase || !*tbase || !*ibase || !ok) {
		snprintf(what, whatlen, "this JVM exports no gHotSpotVMStructs tables");
		return 0;
	}
	st.base = *sbase;
	ty.base = *tbase;
	in.base = *ibase;

	const char *missing = NULL;
#define NEED(f, type, name)                                                  \
	do {                                                                 \
		f = find_field(&st, &ty, type, name);                        \
		if (!f.size && !missing)                                     \
			missing = type "::" name;                            \
	} while (0)
#define EITHER(f, type1, name1, type2, name2)                                \
	do {                                                                 \
		f = find_field(&st, &ty, type1, name1);                      \
		if (!f.size)                                                 \
			NEED(f, type2, name2);                               \
	} while (0)
	struct field heaps, low, high;
	NEED(heaps, "CodeCache", "_heaps");
	NEED(low, "CodeCache", "_low_bound");
	NEED(high, "CodeCache", "_high_bound");
	vm.heaps_addr = heaps.off;
	vm.low_bound_addr = low.off;
	vm.high_bound_addr = high.off;
	NEED(vm.ga_len, "GrowableArrayBase", "_len");
	NEED(vm.ga_data, "GrowableArray<int>", "_data");
	NEED(vm.heap_memory, "CodeHeap", "_memory");
	NEED(vm.heap_segmap, "CodeHeap", "_segmap");
	NEED(vm.heap_log2, "CodeHeap", "_log2_segment_size");
	NEED(vm.vs_low, "VirtualSpace", "_low");
	NEED(vm.vs_high, "VirtualSpace", "_high");
	struct field header, used;
	NEED(header, "HeapBlock", "_header");
	NEED(used, "HeapBlock::Header", "_used");
	vm.block_used = (struct field){ header.off + used.off, used.size, 0 };
	vm.heapblock_size = type_size(&ty, "HeapBlock");
	if (!vm.heapblock_size && !missing)
		missing = "type HeapBlock";
	NEED(vm.blob_name, "CodeBlob", "_name");
	NEED(vm.blob_size, "CodeBlob", "_size");
	NEED(vm.blob_frame_complete, "CodeBlob", "_frame_complete_offset");
	NEED(vm.blob_frame_size, "CodeBlob", "_frame_size");
	vm.blob_code_begin = find_field(&st, &ty, "CodeBlob", "_code_begin");
	vm.blob_code_end = find_field(&st, &ty, "CodeBlob", "_code_end");
	if (!vm.blob_code_begin.size || !vm.blob_code_end.size) {
		NEED(vm.blob_code_offset, "CodeBlob", "_code_offset");
		NEED(vm.blob_data_offset, "CodeBlob", "_data_offset");
	}
	EITHER(vm.nm_method, "nmethod", "_method", "CompiledMethod", "_method");
	vm.nm_verified_entry_point = find_field(&st, &ty, "nmethod", "_verified_entry_point");
	if (!vm.nm_verified_entry_point.size)
		NEED(vm.nm_verified_entry_offset, "nmethod", "_verified_entry_offset");
	NEED(vm.nm_stub_offset, "nmethod", "_stub_offset");
	vm.code_ok = !missing;

	const char *code_missing = missing;
	missing = NULL;
	NEED(vm.method_const, "Method", "_constMethod");
	NEED(vm.const_constants, "ConstMethod", "_constants");
	NEED(vm.const_idnum, "ConstMethod", "_method_idnum");
	NEED(vm.cp_holder, "ConstantPool", "_pool_holder");
	NEED(vm.ik_jmethod_ids, "InstanceKlass", "_methods_jmethod_ids");
	NEED(vm.ik_methods, "InstanceKlass", "_methods");
	NEED(vm.array_len, "Array<int>", "_length");
	NEED(vm.array_data, "Array<Method*>", "_data");
	vm.call_stub_return_addr = find_field(&st, &ty, "StubRoutines", "_call_stub_return_address").off;
	if (!int_constant(&in, "frame::interpreter_frame_sender_sp_offset", &vm.sender_sp_offset))
		vm.sender_sp_offset = 0; /* the interpreter's entries are then not unwound */
	vm.method_ok = vm.code_ok && !missing;

	const char *method_missing = missing;
	missing = NULL;
	NEED(vm.thread_state, "JavaThread", "_thread_state");
	NEED(vm.thread_anchor, "JavaThread", "_anchor");
	NEED(vm.anchor_sp, "JavaFrameAnchor", "_last_Java_sp");
	NEED(vm.anchor_fp, "JavaFrameAnchor", "_last_Java_fp");
	NEED(vm.anchor_pc, "JavaFrameAnchor", "_last_Java_pc");
	if (!int_constant(&in, "_thread_in_vm", &vm.thread_in_vm) && !missing)
		missing = "constant _thread_in_vm";
	/* the state is an enum: 4 bytes, whatever the types table says of JavaThreadState */
	vm.thread_state.size = 4;
	vm.thread_state.is_signed = 1;
	vm.anchor_ok = vm.code_ok && !missing;
	if (!missing)
		missing = method_missing;

	/* thread states (clock=wall): the JVM sets OSThread::_state around every blocking wait — MONITOR_WAIT while it
	 * enters a contended monitor, OBJECT_WAIT in Object.wait, CONDVAR_WAIT in LockSupport.park, SLEEPING in
	 * Thread.sleep — and JavaThread::_thread_state says _thread_in_native.  Optional: without them, UNKNOWN. */
	vm.thread_osthread = find_field(&st, &ty, "JavaThread", "_osthread");
	if (!vm.thread_osthread.size) /* JDK 25: a field of the base class Thread */
		vm.thread_osthread = find_field(&st, &ty, "Thread", "_osthread");
	vm.osthread_state = find_field(&st, &ty, "OSThread", "_state");
	vm.osthread_state.size = 4; /* an enum, as _thread_state */
	vm.osthread_state.is_signed = 1;
	vm.state_ok = find_field(&st, &ty, "JavaThread", "_thread_state").size && vm.thread_osthread.size == 8 &&
		      find_field(&st, &ty, "OSThread", "_state").size &&
		      int_constant(&in, "_thread_in_native", &vm.thread_in_native) &&
		      int_constant(&in, "MONITOR_WAIT", &vm.os_monitor_wait) &&
		      int_constant(&in, "CONDVAR_WAIT", &vm.os_condvar_wait) &&
		      int_constant(&in, "OBJECT_WAIT", &vm.os_object_wait) &&
		      int_constant(&in, "SLEEPING", &vm.os_sleeping);

	/* continuations: absent before JDK 21 (no virtual threads), and the nmethod layout read here (immutable data,
	 * metadata after the relocations in the mutable data) is JDK 24's: older JDKs keep cont_ok 0, unreported */
	const char *other_missing = missing;
	missing = NULL;
	NEED(vm.thread_obj, "JavaThread", "_threadObj");
	NEED(vm.thread_vthread, "JavaThread", "_vthread");
	NEED(vm.nm_immutable, "nmethod", "_immutable_data");
	NEED(vm.nm_pcs_offset, "nmethod", "_scopes_pcs_offset");
	NEED(vm.nm_scopes_offset, "nmethod", "_scopes_data_offset");
	NEED(vm.nm_deopt_handler, "nmethod", "_deopt_handler_offset");
	NEED(vm.nm_orig_pc, "nmethod", "_orig_pc_offset");
	NEED(vm.nm_immutable_size, "nmethod", "_immutable_data_size");
	NEED(vm.nm_deopt_mh_handler, "nmethod", "_deopt_mh_handler_offset");
	if (!int_constant(&in, "frame::interpreter_frame_last_sp_offset", &vm.last_sp_offset) && !missing)
		missing = "constant frame::interpreter_frame_last_sp_offset";
	NEED(vm.blob_mutable, "CodeBlob", "_mutable_data");
	NEED(vm.blob_mutable_size, "CodeBlob", "_mutable_data_size");
	NEED(vm.blob_reloc_size, "CodeBlob", "_relocation_size");
	NEED(vm.pc_offset, "PcDesc", "_pc_offset");
	NEED(vm.pc_scope, "PcDesc", "_scope_decode_offset");
	vm.pcdesc_size = type_size(&ty, "PcDesc");
	struct field mk, base, shift, flags, nflags;
	NEED(mk, "java_lang_Class", "_klass_offset");
	vm.mirror_klass_addr = mk.off;
	NEED(vm.klass_layout, "Klass", "_layout_helper");
	EITHER(base, "CompressedOops", "_base", "CompressedOops", "_narrow_oop._base");
	EITHER(shift, "CompressedOops", "_shift", "CompressedOops", "_narrow_oop._shift");
	vm.oop_base_addr = base.off;
	vm.oop_shift_addr = shift.off;
	NEED(flags, "JVMFlag", "flags");
	NEED(nflags, "JVMFlag", "numFlags");
	vm.flags_addr = flags.off;
	vm.nflags_addr = nflags.off;
	NEED(vm.flag_name, "JVMFlag", "_name");
	NEED(vm.flag_addr, "JVMFlag", "_addr");
	vm.flag_size = type_size(&ty, "JVMFlag");
	vm.cont_ok = vm.method_ok && !missing && vm.pcdesc_size >= 8 && vm.flag_size && vm.sender_sp_offset;
	missing = other_missing;
#undef EITHER
#undef NEED
	if (code_missing || missing)
		snprintf(what, whatlen, "%s is not in this JVM's gHotSpotVMStructs",
			 code_missing ? code_missing : missing);
	return vm.code_ok;
}

/* --- queries (signal handler, under agct.c's fault guard) --- */

static uintptr_t word(uintptr_t addr)
{
	return *(const uintptr_t *)addr;
}

static int64_t rd(uintptr_t base, const struct field *f)
{
	const void *p = (const void *)(base + f->off);
	switch (f->size) {
	case 1:
		return *(const uint8_t *)p;
	case 2:
		return f->is_signed ? (int64_t) * (const int16_t *)p : (int64_t) * (const uint16_t *)p;
	case 4:
		return f->is_signed ? (int64_t) * (const int32_t *)p : (int64_t) * (const uint32_t *)p;
	default:
		return (int64_t)*(const uint64_t *)p;
	}
}

int emp_vmstructs_in_code(uintptr_t pc)
{
	return vm.code_ok && pc >= word(vm.low_bound_addr) && pc < word(vm.high_bound_addr);
}

/* The used block's blob holding @pc in the heap @heap, or 0. */
static uintptr_t heap_find(uintptr_t heap, uintptr_t pc)
{
	uintptr_t low = word(heap + vm.heap_memory.off + vm.vs_low.off);
	uintptr_t high = word(heap + vm.heap_memory.off + vm.vs_high.off);
	if (pc < low || pc >= high)
		return 0;
	const uint8_t *segmap = (const uint8_t *)word(heap + vm.heap_segmap.off + vm.vs_low.off);
	int log2 = (int)rd(heap, &vm.heap_log2);
	if (!segmap || log2 <= 0 || log2 > 20)
		return 0;
	uintptr_t seg = (pc - low) >> log2;
	if (segmap[seg] == 0xff)
		return 0;
	/* each step goes back at least one segment; a blob's start is at most its size away */
	for (unsigned steps = 0; segmap[seg] > 0; steps++) {
		if (steps > (1u << 16) || segmap[seg] > seg)
			return 0;
		seg -= segmap[seg];
	}
	uintptr_t block = low + (seg << log2);
	if (!rd(block, &vm.block_used))
		return 0;
	return block + vm.heapblock_size;
}

int emp_vmstructs_blob(uintptr_t pc, struct emp_vm_blob *b)
{
	if (!emp_vmstructs_in_code(pc))
		return -1;
	uintptr_t heaps = word(vm.heaps_addr), blob = 0;
	if (!heaps)
		return -1;
	int n = (int)rd(heaps, &vm.ga_len);
	uintptr_t data = word(heaps + vm.ga_data.off);
	for (int i = 0; i < n && i < 8 && !blob; i++)
		blob = heap_find(word(data + 8u * (unsigned)i), pc);
	if (!blob)
		return -1;
	memset(b, 0, sizeof(*b));
	b->blob = blob;
	if (vm.blob_code_begin.size) {
		b->code_begin = (uintptr_t)rd(blob, &vm.blob_code_begin);
		b->code_end = (uintptr_t)rd(blob, &vm.blob_code_end);
	} else {
		b->code_begin = blob + (uintptr_t)rd(blob, &vm.blob_code_offset);
		b->code_end = blob + (uintptr_t)rd(blob, &vm.blob_data_offset);
	}
	int64_t size = rd(blob, &vm.blob_size);
	if (pc < b->code_begin || pc >= b->code_end || size <= 0 || b->code_end > blob + (uintptr_t)size)
		return -1; /* not this blob's instructions (a stale or half-written header) */
	b->frame_size = (int)rd(blob, &vm.blob_frame_size);
	b->frame_complete = (int)rd(blob, &vm.blob_frame_complete);
	b->name = (const char *)word(blob + vm.blob_name.off);
	/* JDK 17 names native wrappers "nmethod" too, JDK 21+ "native nmethod"; vtable and itable stubs share
	 * VtableBlobs named "vtable chunks" */
	b->is_nmethod = b->name && (!strcmp(b->name, "nmethod") || !strcmp(b->name, "native nmethod"));
	b->is_vtable_stub = b->name && !strcmp(b->name, "vtable chunks");
	b->is_interpreter = b->name && !strcmp(b->name, "Interpreter");
	b->is_adapter = b->name && !strcmp(b->name, "I2C/C2I adapters");
	if (b->is_nmethod) {
		b->method = word(blob + vm.nm_method.off);
		b->verified_entry = vm.nm_verified_entry_point.size
			? (int)((uintptr_t)rd(blob, &vm.nm_verified_entry_point) - b->code_begin)
			: (int)rd(blob, &vm.nm_verified_entry_offset);
		/* nmethod::stub_begin() is header_begin() + _stub_offset; past the code: no stub section known */
		uintptr_t stub = blob + (uintptr_t)rd(blob, &vm.nm_stub_offset);
		b->stub = stub >= b->code_begin && stub <= b->code_end ? (int)(stub - b->code_begin)
								       : (int)(b->code_end - b->code_begin);
	}
	return 0;
}

jmethodID emp_vmstructs_method_id(uintptr_t method)
{
	if (!vm.method_ok || !method)
		return NULL;
	uintptr_t cm = word(method + vm.method_const.off);
	if (!cm)
		return NULL;
	uintptr_t cp = word(cm + vm.const_constants.off);
	uintptr_t holder = cp ? word(cp + vm.cp_holder.off) : 0;
	uintptr_t ids = holder ? word(holder + vm.ik_jmethod_ids.off) : 0;
	if (!ids)
		return NULL;
	uint64_t idnum = (uint64_t)rd(cm, &vm.const_idnum);
	if (idnum + 1 > word(ids))
		return NULL;
	/* @method must be its class's method number idnum (InstanceKlass::method_with_idnum: at that index of
	 * _methods, else anywhere in it) */
	uintptr_t methods = word(holder + vm.ik_methods.off);
	int64_t len = methods ? rd(methods, &vm.array_len) : 0;
	const uintptr_t *m = (const uintptr_t *)(methods + vm.array_data.off);
	int found = (int64_t)idnum < len && m[idnum] == method;
	for (int64_t i = 0; !found && i < len && i < 65536; i++)
		found = m[i] == method;
	if (!found)
		return NULL;
	return (jmethodID)word(ids + 8u * (idnum + 1));
}

int emp_vmstructs_anchor(uintptr_t thread, struct emp_vm_anchor *a)
{
	if (!vm.anchor_ok || !thread)
		return -1;
	uintptr_t anchor = thread + vm.thread_anchor.off;
	a->in_vm = rd(thread, &vm.thread_state) == vm.thread_in_vm;
	a->sp = word(anchor + vm.anchor_sp.off);
	a->fp = word(anchor + vm.anchor_fp.off);
	a->pc = word(anchor + vm.anchor_pc.off);
	a->sp_slot = (uintptr_t *)(anchor + vm.anchor_sp.off);
	a->fp_slot = (uintptr_t *)(anchor + vm.anchor_fp.off);
	a->pc_slot = (uintptr_t *)(anchor + vm.anchor_pc.off);
	return 0;
}

int emp_vmstructs_thread_state(uintptr_t thread)
{
	if (!vm.state_ok || !thread)
		return EMP_STATE_UNKNOWN;
	uintptr_t os = (uintptr_t)rd(thread, &vm.thread_osthread);
	int64_t ts = os ? rd(os, &vm.osthread_state) : -1;
	if (ts == vm.os_monitor_wait)
		return EMP_STATE_BLOCKED;
	if (ts == vm.os_sleeping)
		return EMP_STATE_SLEEPING;
	if (ts == vm.os_object_wait || ts == vm.os_condvar_wait)
		return EMP_STATE_WAITING;
	return rd(thread, &vm.thread_state) == vm.thread_in_native ? EMP_STATE_NATIVE : EMP_STATE_RUNNING;
}

int emp_vmstructs_interpreter_sender_sp(void)
{
	return (int)vm.sender_sp_offset;
}

int emp_vmstructs_is_call_stub_return(uintptr_t pc)
{
	return vm.code_ok && vm.call_stub_return_addr && pc == word(vm.call_stub_return_addr);
}

/* --- continuations (JDK 24+ nmethod layout) --- */

int emp_vmstructs_cont_ok(void)
{
	return vm.cont_ok;
}

int emp_vmstructs_flag(const char *name, int *value)
{
	if (!vm.cont_ok)
		return -1;
	uintptr_t flags = word(vm.flags_addr);
	size_t n = (size_t)word(vm.nflags_addr);
	for (size_t i = 0; flags && i < n; i++) {
		uintptr_t f = flags + i * vm.flag_size;
		const char *fname = (const char *)word(f + vm.flag_name.off);
		if (!fname || strcmp(fname, name))
			continue;
		const uint8_t *addr = (const uint8_t *)word(f + vm.flag_addr.off);
		if (!addr)
			return -1;
		*value = *addr;
		return 0;
	}
	return -1;
}

void emp_vmstructs_narrow_oops(uintptr_t *base, int *shift)
{
	*base = vm.cont_ok ? word(vm.oop_base_addr) : 0;
	*shift = vm.cont_ok ? *(const int *)vm.oop_shift_addr : 0;
}

int64_t emp_vmstructs_instance_size(uintptr_t mirror)
{
	if (!vm.cont_ok || !mirror)
		return -1;
	uintptr_t klass = word(mirror + (uintptr_t)*(const int *)vm.mirror_klass_addr);
	/* an instance class's layout helper is its instance size in bytes; bit 0 asks for the slow allocation path */
	int64_t lh = klass ? rd(klass, &vm.klass_layout) : 0;
	return lh > 0 ? lh & ~(int64_t)7 : -1;
}

int emp_vmstructs_interpreter_method(void)
{
	return vm.cont_ok ? (int)vm.last_sp_offset - 1 : 0;
}

int emp_vmstructs_interpreter_locals(void)
{
	return vm.cont_ok ? (int)vm.last_sp_offset - 5 : 0;
}

uintptr_t emp_vmstructs_thread_oop(uintptr_t thread, int vthread)
{
	if (!vm.cont_ok || !thread)
		return 0;
	uintptr_t slot = word(thread + (vthread ? vm.thread_vthread.off : vm.thread_obj.off));
	return slot ? word(slot) : 0;
}

/* One UNSIGNED5 value (HotSpot's CompressedReadStream::read_int: bytes 1..191 end a value, 192..255 carry 6 more
 * bits each, at most 5 bytes, 0 never occurs) at @p[*pos], below @limit.  Return: 0, or -1 when it runs past
 * @limit or holds a 0 byte. */
static int read_u5(const uint8_t *p, uint32_t limit, uint32_t *pos, uint32_t *value)
{
	uint32_t sum = 0;
	for (int i = 0, shift = 0; i < 5; i++, shift += 6) {
		if (*pos >= limit || !p[*pos])
			return -1;
		uint32_t b = p[(*pos)++];
		sum += (b - 1) << shift;
		if (b < 192 || i == 4)
			break;
	}
	*value = sum;
	return 0;
}

int emp_vmstructs_scopes(const struct emp_vm_blob *b, uintptr_t pc, uintptr_t sp, uintptr_t *methods, int max)
{
	if (!vm.cont_ok || !b->is_nmethod || max < 1)
		return -1;
	uintptr_t blob = b->blob;
	if (pc == blob + (uintptr_t)rd(blob, &vm.nm_deopt_handler) ||
	    pc == blob + (uintptr_t)rd(blob, &vm.nm_deopt_mh_handler)) /* deoptimized: the pc it had is in the frame */
		pc = word(sp + (uintptr_t)rd(blob, &vm.nm_orig_pc));
	if (pc < b->code_begin || pc >= b->code_end)
		return -1;
	int64_t off = (int64_t)(pc - b->code_begin), pcs = rd(blob, &vm.nm_pcs_offset);
	int64_t scopes = rd(blob, &vm.nm_scopes_offset), size = rd(blob, &vm.nm_immutable_size);
	uintptr_t imm = word(blob + vm.nm_immutable.off);
	if (!imm || pcs < 0 || scopes < pcs || size < scopes || size > (1 << 28))
		return -1;
	/* the PcDescs are sorted by pc offset; a return address has one of its own */
	uint64_t lo = 0, hi = (uint64_t)(scopes - pcs) / vm.pcdesc_size, desc = 0;
	while (lo < hi && !desc) {
		uint64_t mid = (lo + hi) / 2;
		uintptr_t d = imm + (uintptr_t)pcs + mid * vm.pcdesc_size;
		int64_t o = rd(d, &vm.pc_offset);
		if (o == off)
			desc = d;
		else if (o < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!desc)
		return -1;
	uint32_t decode = (uint32_t)rd(desc, &vm.pc_scope);
	if (!decode) { /* no debug information at this pc: the nmethod's own method */
		methods[0] = word(blob + vm.nm_method.off);
		return 1;
	}
	/* each scope: sender's decode offset, method (an index into the metadata after the relocations, from 1), bci
	 * (ScopeDesc::decode_body); the first is the innermost inlined method */
	const uint8_t *data = (const uint8_t *)(imm + (uintptr_t)scopes);
	uint32_t limit = (uint32_t)(size - scopes);
	uintptr_t metadata = word(blob + vm.blob_mutable.off) + (uintptr_t)rd(blob, &vm.blob_reloc_size);
	int64_t nmeta = (rd(blob, &vm.blob_mutable_size) - rd(blob, &vm.blob_reloc_size)) / 8;
	for (int n = 0; n < max; n++) {
		uint32_t pos = decode, sender, index;
		if (read_u5(data, limit, &pos, &sender) || read_u5(data, limit, &pos, &index) || !index ||
		    index > nmeta)
			return -1;
		methods[n] = word(metadata + 8u * (index - 1));
		if (!sender)
			return n + 1;
		decode = sender;
	}
	return -1; /* deeper than @max */
}
