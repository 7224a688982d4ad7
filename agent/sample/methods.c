/* SPDX-License-Identifier: MIT */
/* methods.c - jmethodID -> class, name and signature, filled at class preparation; see methods.h. */
#include "methods.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "idcache.h"

/* jmethodID -> (struct emp_method_name *) stored as the cache's id; under `lock` (class-preparing threads add, the
 * writer finds). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct emp_idcache names;

/* One allocation: the entry, then "cls\0name\0sig\0". */
static struct emp_method_name *entry_new(const char *cls, size_t cls_len, const char *name, const char *sig)
{
	size_t nl = strlen(name) + 1, sl = strlen(sig) + 1;
	struct emp_method_name *e = malloc(sizeof(*e) + cls_len + 1 + nl + sl);
	if (!e)
		return NULL;
	char *p = (char *)(e + 1);
	memcpy(p, cls, cls_len);
	p[cls_len] = 0;
	e->cls = p;
	p += cls_len + 1;
	e->name = memcpy(p, name, nl);
	e->sig = memcpy(p + nl, sig, sl);
	return e;
}

static void add(jmethodID m, struct emp_method_name *e)
{
	pthread_mutex_lock(&lock);
	struct emp_idcache_slot *sl = emp_idcache_lookup(&names, (uint64_t)(uintptr_t)m);
	if (sl && !sl->key) {
		emp_idcache_insert(&names, sl, (uint64_t)(uintptr_t)m, (int64_t)(intptr_t)e);
		e = NULL;
	}
	pthread_mutex_unlock(&lock);
	free(e); /* already known (a class prepared twice: at VMInit's sweep and by its event), or out of memory */
}

void emp_methods_add_class(jvmtiEnv *jvmti, jclass klass)
{
	char *csig = NULL;
	jint n = 0;
	jmethodID *ms = NULL;
	if ((*jvmti)->GetClassMethods(jvmti, klass, &n, &ms) != JVMTI_ERROR_NONE || !ms)
		return;
	if ((*jvmti)->GetClassSignature(jvmti, klass, &csig, NULL) == JVMTI_ERROR_NONE && csig) {
		/* "Lpkg/Cls;" -> "pkg/Cls" */
		const char *cls = csig;
		size_t len = strlen(cls);
		if (len >= 2 && cls[0] == 'L' && cls[len - 1] == ';') {
			cls++;
			len -= 2;
		}
		for (jint i = 0; i < n; i++) {
			char *name = NULL, *msig = NULL;
			if ((*jvmti)->GetMethodName(jvmti, ms[i], &name, &msig, NULL) == JVMTI_ERROR_NONE && name && msig) {
				struct emp_method_name *e = entry_new(cls, len, name, msig);
				if (e)
					add(ms[i], e);
			}
			if (name)
				(*jvmti)->Deallocate(jvmti, (unsigned char *)name);
			if (msig)
				(*jvmti)->Deallocate(jvmti, (unsigned char *)msig);
		}
		(*jvmti)->Deallocate(jvmti, (unsigned char *)csig);
	}
	(*jvmti)->Deallocate(jvmti, (unsigned char *)ms);
}

const struct emp_method_name *emp_methods_find(jmethodID m)
{
	const struct emp_method_name *e = NULL;
	pthread_mutex_lock(&lock);
	struct emp_idcache_slot *sl = emp_idcache_lookup(&names, (uint64_t)(uintptr_t)m);
	if (sl && sl->key)
		e = (const struct emp_method_name *)(intptr_t)sl->id;
	pthread_mutex_unlock(&lock);
	return e;
}
