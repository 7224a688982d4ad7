/* SPDX-License-Identifier: MIT */
/* test_vmthreads.c - agent/sample/vmthreads.c without a JVM: the category of a JVM thread from its OS name. */
#include <criterion/criterion.h>

#include "sampler.h"

Test(vmthreads, categories_from_hotspot_names)
{
	/* As /proc/<pid>/task/<tid>/comm shows them on JDK 17 and 25 (cut to 15 characters). */
	static const struct {
		const char *comm;
		enum emp_vm_category c;
	} cases[] = {
		{ "C1 CompilerThre", EMP_VM_JIT },   { "C2 CompilerThre", EMP_VM_JIT },
		{ "Sweeper thread", EMP_VM_JIT },    { "JVMCI CompilerT", EMP_VM_JIT },
		{ "GC Thread#0", EMP_VM_GC },        { "GC Thread#1", EMP_VM_GC },
		{ "G1 Main Marker", EMP_VM_GC },     { "G1 Conc#0", EMP_VM_GC },
		{ "G1 Refine#0", EMP_VM_GC },        { "G1 Service", EMP_VM_GC },
		{ "ZDirector", EMP_VM_GC },          { "ZDriverMajor", EMP_VM_GC },
		{ "ZWorkerYoung#0", EMP_VM_GC },     { "ZUncommitter#0", EMP_VM_GC },
		{ "Shenandoah Cont", EMP_VM_GC },    { "Shenandoah GC T", EMP_VM_GC },
		{ "VM Thread", EMP_VM_VM },          { "VM Periodic Tas", EMP_VM_VM },
		{ "Service Thread", EMP_VM_VM },     { "Monitor Deflati", EMP_VM_VM },
		{ "Signal Dispatch", EMP_VM_VM },    { "Reference Handl", EMP_VM_VM },
		{ "Finalizer", EMP_VM_VM },          { "Notification Th", EMP_VM_VM },
		{ "Common-Cleaner", EMP_VM_VM },     { "RuntimeWorker#0", EMP_VM_VM },
		{ "Attach Listener", EMP_VM_VM },    { "java", EMP_VM_NATIVE },
		{ "", EMP_VM_NATIVE },               { "Zebra", EMP_VM_NATIVE },
		{ "pool-1-thread-1", EMP_VM_NATIVE }, { "emp vmscan", EMP_VM_NATIVE },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_eq(emp_vmthreads_category(cases[i].comm), cases[i].c, "'%s'", cases[i].comm);
	cr_assert_str_eq(emp_vmthreads_category_name(EMP_VM_JIT), "[JIT compiler]");
	cr_assert_str_eq(emp_vmthreads_category_name(EMP_VM_GC), "[GC]");
	cr_assert_str_eq(emp_vmthreads_category_name(EMP_VM_VM), "[VM]");
	cr_assert_str_eq(emp_vmthreads_category_name(EMP_VM_NATIVE), "[native thread]");
	cr_assert_null(emp_vmthreads_category_name(-1));
	cr_assert_null(emp_vmthreads_category_name(EMP_VM_CATEGORY_COUNT));
}
