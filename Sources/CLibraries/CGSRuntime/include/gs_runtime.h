// Thread names for GrandstandRuntime: pthread_setname_np/getname_np are GNU extensions that
// Glibc's Swift module does not show.
#pragma once
#include <pthread.h>
#include <stddef.h>

/// Names `thread` (at most 15 bytes are kept). 0 or an errno value.
int gs_rt_set_thread_name(pthread_t thread, const char *name);
/// Copies the calling thread's name into `buffer` (16 bytes suffice). 0 or an errno value.
int gs_rt_thread_name(char *buffer, size_t size);
