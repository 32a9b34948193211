#define _GNU_SOURCE
#include "gs_runtime.h"

#include <pthread.h>
#include <string.h>

int gs_rt_set_thread_name(pthread_t thread, const char *name) {
    char cut[16];
    strncpy(cut, name, sizeof cut - 1);
    cut[sizeof cut - 1] = '\0';
    return pthread_setname_np(thread, cut);
}

int gs_rt_thread_name(char *buffer, size_t size) {
    return pthread_getname_np(pthread_self(), buffer, size);
}
