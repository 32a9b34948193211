// See include/gs_srt.h.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <srt/access_control.h>
#include "gs_srt.h"

#define GS_SRT_RECENT 16

struct gs_srt_gate {
    atomic_int busy;
    atomic_long refused;
    atomic_uint next;
    atomic_int recent[GS_SRT_RECENT];
};

gs_srt_gate *gs_srt_gate_create(void) {
    gs_srt_gate *gate = calloc(1, sizeof *gate);
    if (gate == NULL) return NULL;
    for (int i = 0; i < GS_SRT_RECENT; i++) atomic_init(&gate->recent[i], -1);
    return gate;
}

void gs_srt_gate_free(gs_srt_gate *gate) { free(gate); }

/// srt_listen_callback_fn, on libsrt's receive thread, before the handshake is processed.
static int gs_srt_gate_hook(void *opaque, SRTSOCKET ns, int hsversion, const struct sockaddr *peer, const char *streamid) {
    (void)hsversion; (void)peer; (void)streamid;
    gs_srt_gate *gate = opaque;
    unsigned slot = atomic_fetch_add(&gate->next, 1) % GS_SRT_RECENT;
    atomic_store(&gate->recent[slot], (int)ns);
    if (atomic_load(&gate->busy)) {
        atomic_fetch_add(&gate->refused, 1);
        srt_setrejectreason(ns, SRT_REJX_OVERLOAD);
        return -1;
    }
    return 0;
}

int gs_srt_gate_attach(gs_srt_gate *gate, SRTSOCKET listener) {
    return srt_listen_callback(listener, gs_srt_gate_hook, gate);
}

void gs_srt_gate_set_busy(gs_srt_gate *gate, int busy) { atomic_store(&gate->busy, busy); }

long gs_srt_gate_refused(const gs_srt_gate *gate) { return atomic_load(&gate->refused); }

int gs_srt_gate_saw(const gs_srt_gate *gate, SRTSOCKET socket) {
    for (int i = 0; i < GS_SRT_RECENT; i++) {
        if (atomic_load(&gate->recent[i]) == (int)socket) return 1;
    }
    return 0;
}

#define GS_SRT_RING 64
#define GS_SRT_LINE 240

static pthread_mutex_t gs_srt_log_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long gs_srt_log_written;   // lines ever kept; line n lives in slot n % GS_SRT_RING
static struct { int socket; char text[GS_SRT_LINE]; } gs_srt_ring[GS_SRT_RING];

/// The socket id a libsrt line names as "@123456:" (-1 if none).
static int gs_srt_named_socket(const char *message) {
    for (const char *at = strchr(message, '@'); at != NULL; at = strchr(at + 1, '@')) {
        char *end = NULL;
        long id = strtol(at + 1, &end, 10);
        if (end != at + 1 && *end == ':' && id > 0 && id < 0x7fffffff) return (int)id;
    }
    return -1;
}

static void gs_srt_log_handler(void *opaque, int level, const char *file, int line, const char *area, const char *message) {
    (void)opaque; (void)file; (void)line; (void)area;
    if (message == NULL) return;
    if (strstr(message, "rejected") != NULL || strstr(message, "REJECT") != NULL) {
        pthread_mutex_lock(&gs_srt_log_lock);
        unsigned long slot = gs_srt_log_written % GS_SRT_RING;
        gs_srt_ring[slot].socket = gs_srt_named_socket(message);
        snprintf(gs_srt_ring[slot].text, GS_SRT_LINE, "%s", message);
        size_t length = strlen(gs_srt_ring[slot].text);
        while (length > 0 && (gs_srt_ring[slot].text[length - 1] == '\n' || gs_srt_ring[slot].text[length - 1] == '\r')) {
            gs_srt_ring[slot].text[--length] = '\0';
        }
        gs_srt_log_written++;
        pthread_mutex_unlock(&gs_srt_log_lock);
    } else if (level <= LOG_ERR) {
        char line[GS_SRT_LINE + 16];
        int length = snprintf(line, sizeof line, "libsrt: %s\n", message);
        if (length > (int)sizeof line - 1) length = (int)sizeof line - 1;
        ssize_t ignored = write(2, line, (size_t)length);
        (void)ignored;
    }
}

void gs_srt_log_install(void) {
    static atomic_int installed;
    if (atomic_exchange(&installed, 1)) return;
    srt_setloghandler(NULL, gs_srt_log_handler);
    srt_setlogflags(SRT_LOGF_DISABLE_TIME | SRT_LOGF_DISABLE_THREADNAME | SRT_LOGF_DISABLE_EOL);
    srt_setloglevel(LOG_WARNING);
}

int gs_srt_log_next_rejection(unsigned long *cursor, int *socket, char *text, size_t size) {
    pthread_mutex_lock(&gs_srt_log_lock);
    unsigned long oldest = gs_srt_log_written > GS_SRT_RING ? gs_srt_log_written - GS_SRT_RING : 0;
    if (*cursor < oldest) *cursor = oldest;
    int found = 0;
    if (*cursor < gs_srt_log_written) {
        unsigned long slot = *cursor % GS_SRT_RING;
        *socket = gs_srt_ring[slot].socket;
        if (size > 0) snprintf(text, size, "%s", gs_srt_ring[slot].text);
        *cursor += 1;
        found = 1;
    }
    pthread_mutex_unlock(&gs_srt_log_lock);
    return found;
}
