/* SPDX-License-Identifier: MIT */
/* jni_attach.c - a JVM launcher for tests/integration/sample_vmthreads.sh: a native thread that runs before it
 * attaches to the JVM, to check sample mode's take-over rule (threads=all) without timing assumptions.
 *
 * usage: jni-attach LIBJVM AGENT_PATH=OPTIONS
 *
 * The main thread creates the JVM (with -agentpath:AGENT_PATH=OPTIONS) and starts the thread "emp-native", which:
 *   1. burns CPU in native code with SIGPROF blocked until one is pending for it — the sampler's scanner armed it as
 *      a JVM thread (perf engine: the signal is directed at this thread) — then unblocks it: that sample goes to
 *      its JVM-thread state ([native thread] root);
 *   2. attaches to the JVM as "emp-attached" (JNI AttachCurrentThread: ThreadStart, the take-over);
 *   3. burns CPU again until a SIGPROF is pending (now from its Java sampler state), unblocks, detaches.
 * stdout: "tid N" (the native thread's OS tid), then "ok".  Exit 1 with a message when a step fails or a signal
 * does not come within 60 s of CPU time.
 */
#include <dlfcn.h>
#include <jni.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef jint (*create_vm_fn)(JavaVM **vm, void **env, void *args);

static JavaVM *vm;
static const char *failure;

/* Spin until SIGPROF is pending for this thread (it is blocked), then take it.  Return: 0, or -1 after 60 s. */
static int burn_until_sampled(void)
{
	sigset_t prof, pending;
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	pthread_sigmask(SIG_BLOCK, &prof, NULL);
	struct timespec start, now;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
	volatile unsigned long x = 1;
	for (;;) {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		sigpending(&pending);
		if (sigismember(&pending, SIGPROF))
			break;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
		if (now.tv_sec - start.tv_sec > 60)
			return -1;
	}
	pthread_sigmask(SIG_UNBLOCK, &prof, NULL); /* the agent's handler takes the sample here */
	return 0;
}

static void *native_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "emp-native");
	printf("tid %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	if (burn_until_sampled()) {
		failure = "the native thread was never sampled before attaching";
		return NULL;
	}
	JNIEnv *env = NULL;
	JavaVMAttachArgs args = { .version = JNI_VERSION_1_8, .name = (char *)"emp-attached", .group = NULL };
	if ((*vm)->AttachCurrentThread(vm, (void **)&env, &args) != JNI_OK) {
		failure = "AttachCurrentThread failed";
		return NULL;
	}
	if (burn_until_sampled())
		failure = "the attached thread was never sampled";
	(*vm)->DetachCurrentThread(vm);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: jni-attach LIBJVM AGENT_PATH=OPTIONS\n");
		return 2;
	}
	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL); /* as the java launcher does: the agent finds AGCT */
	create_vm_fn create = lib ? (create_vm_fn)dlsym(lib, "JNI_CreateJavaVM") : NULL;
	if (!create) {
		fprintf(stderr, "jni-attach: %s\n", dlerror());
		return 1;
	}
	char agent[4096];
	snprintf(agent, sizeof(agent), "-agentpath:%s", argv[2]);
	JavaVMOption opts[] = { { .optionString = agent, .extraInfo = NULL } };
	JavaVMInitArgs args = { .version = JNI_VERSION_1_8, .nOptions = 1, .options = opts, .ignoreUnrecognized = 0 };
	JNIEnv *env = NULL;
	if (create(&vm, (void **)&env, &args) != JNI_OK) {
		fprintf(stderr, "jni-attach: JNI_CreateJavaVM failed\n");
		return 1;
	}
	pthread_t th;
	if (pthread_create(&th, NULL, native_main, NULL)) {
		fprintf(stderr, "jni-attach: pthread_create failed\n");
		return 1;
	}
	pthread_join(th, NULL);
	(*vm)->DestroyJavaVM(vm);
	if (failure) {
		fprintf(stderr, "jni-attach: %s\n", failure);
		return 1;
	}
	printf("ok\n");
	return 0;
}
