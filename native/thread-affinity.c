// Which cores a thread of this process may run on (Linux sched_setaffinity), for
// src/replay/thread-placement.ts: `twinchain replay` keeps its own thread on one core and its
// reader and crypto workers on the others, so that they never take turns on one core (and its
// caches) while the replay's thread executes. Node has no call for it. Built by
// scripts/build-native.js where a C compiler and Node's headers are installed; elsewhere the
// threads are left where the kernel puts them.
#define _GNU_SOURCE
#include <errno.h>
#include <node_api.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

// The thread id argument (0: the calling thread), else -1 with a TypeError pending.
static pid_t thread_of(napi_env env, napi_value value) {
  int32_t tid = -1;
  if (napi_get_value_int32(env, value, &tid) != napi_ok || tid < 0) {
    napi_throw_type_error(env, NULL, "the thread id must be a non-negative integer (0: this thread)");
    return -1;
  }
  return (pid_t)tid;
}

// The call's `count` arguments into argv; false with a TypeError pending where there are not exactly as many.
static bool arguments_of(napi_env env, napi_callback_info info, size_t count, napi_value *argv, const char *usage) {
  size_t argc = count;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return false;
  if (argc != count) {
    napi_throw_type_error(env, NULL, usage);
    return false;
  }
  return true;
}

static void throw_errno(napi_env env, const char *what, int error) {
  char message[160];
  snprintf(message, sizeof message, "%s: %s", what, strerror(error));
  napi_throw_error(env, NULL, message);
}

// getAffinity(tid): the cores the thread may run on, in ascending order.
static napi_value get_affinity(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!arguments_of(env, info, 1, argv, "getAffinity(tid) takes one argument")) return NULL;
  pid_t tid = thread_of(env, argv[0]);
  if (tid < 0) return NULL;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(tid, sizeof set, &set) != 0) {
    throw_errno(env, "sched_getaffinity", errno);
    return NULL;
  }
  napi_value result;
  if (napi_create_array(env, &result) != napi_ok) return NULL;
  uint32_t count = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &set)) continue;
    napi_value n;
    if (napi_create_int32(env, cpu, &n) != napi_ok || napi_set_element(env, result, count++, n) != napi_ok) return NULL;
  }
  return result;
}

// setAffinity(tid, cores): let the thread run on those cores only.
static napi_value set_affinity(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!arguments_of(env, info, 2, argv, "setAffinity(tid, cores) takes two arguments")) return NULL;
  pid_t tid = thread_of(env, argv[0]);
  if (tid < 0) return NULL;
  bool is_array = false;
  uint32_t length = 0;
  if (napi_is_array(env, argv[1], &is_array) != napi_ok || !is_array || napi_get_array_length(env, argv[1], &length) != napi_ok || length == 0) {
    napi_throw_type_error(env, NULL, "the cores must be a non-empty array of core numbers");
    return NULL;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  for (uint32_t i = 0; i < length; i++) {
    napi_value element;
    int32_t cpu = -1;
    if (napi_get_element(env, argv[1], i, &element) != napi_ok || napi_get_value_int32(env, element, &cpu) != napi_ok || cpu < 0 || cpu >= CPU_SETSIZE) {
      napi_throw_range_error(env, NULL, "each core must be an integer from 0 to CPU_SETSIZE - 1");
      return NULL;
    }
    CPU_SET(cpu, &set);
  }
  if (sched_setaffinity(tid, sizeof set, &set) != 0) {
    throw_errno(env, "sched_setaffinity", errno);
    return NULL;
  }
  return NULL;
}

// currentCore(): the core the calling thread runs on now.
static napi_value current_core(napi_env env, napi_callback_info info) {
  (void)info;
  int cpu = sched_getcpu();
  if (cpu < 0) {
    throw_errno(env, "sched_getcpu", errno);
    return NULL;
  }
  napi_value result;
  if (napi_create_int32(env, cpu, &result) != napi_ok) return NULL;
  return result;
}

NAPI_MODULE_INIT() {
  const struct {
    const char *name;
    napi_callback cb;
  } functions[] = {{"getAffinity", get_affinity}, {"setAffinity", set_affinity}, {"currentCore", current_core}};
  for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
    napi_value fn;
    if (napi_create_function(env, functions[i].name, NAPI_AUTO_LENGTH, functions[i].cb, NULL, &fn) != napi_ok) return NULL;
    if (napi_set_named_property(env, exports, functions[i].name, fn) != napi_ok) return NULL;
  }
  return exports;
}
