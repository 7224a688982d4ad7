/* TEMPORARY until sampler.c / tracer.c land (same session): both modes refuse to load. */
#include <stdio.h>
#include "modes.h"
static int refuse(jvmtiEnv *j, const struct emp_options *o, jvmtiCapabilities *c, jvmtiEventCallbacks *cb, char *err, size_t n)
{ (void)j; (void)c; (void)cb; snprintf(err, n, "mode=%s is not built yet", emp_mode_name(o->mode)); return -1; }
const struct emp_mode_ops emp_sampler_ops = { .name = "sample", .onload = refuse };
