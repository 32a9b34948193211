// What the SRT adapter needs from libsrt that Swift cannot express: a listen callback that admits
// one peer at a time, and a log handler that keeps libsrt's own rejection reasons (a listener's
// wrong-passphrase refusal is only ever logged by libsrt) for the adapter to read.
#pragma once

#include <stddef.h>
#include <srt/srt.h>

/// One listener's admission state, shared with libsrt's receive thread (atomics inside).
typedef struct gs_srt_gate gs_srt_gate;

gs_srt_gate *gs_srt_gate_create(void);
void gs_srt_gate_free(gs_srt_gate *gate);
/// Installs the gate as `listener`'s listen callback (srt_listen_callback); 0 or SRT_ERROR.
int gs_srt_gate_attach(gs_srt_gate *gate, SRTSOCKET listener);
/// While busy, every new caller is refused (reject reason SRT_REJX_OVERLOAD) and counted.
void gs_srt_gate_set_busy(gs_srt_gate *gate, int busy);
/// Callers refused while busy.
long gs_srt_gate_refused(const gs_srt_gate *gate);
/// Whether `socket` is one of the last callers this gate saw (to attribute libsrt's log lines).
int gs_srt_gate_saw(const gs_srt_gate *gate, SRTSOCKET socket);

/// Routes libsrt's log (at LOG_WARNING and above) into a ring of rejection lines; other lines go
/// to standard error at LOG_ERR and above only, as libsrt's default does. Idempotent.
void gs_srt_log_install(void);
/// The next rejection line after `*cursor` (a sequence number the reader keeps, 0 at first):
/// copies its text (NUL-terminated, cut to `size`) and the socket id it names (-1 if none) and
/// returns 1; returns 0 when there is none. Lines older than the ring are skipped.
int gs_srt_log_next_rejection(unsigned long *cursor, int *socket, char *text, size_t size);

/// libsrt error codes (`SRT_ERRNO`) the adapter tells apart. Swift 6.0.3 does not import that
/// enum's constants (macros build them from two other enums), so they come through as ints.
static inline int gs_srt_error_async_receive(void) { return SRT_EASYNCRCV; }
static inline int gs_srt_error_async_send(void) { return SRT_EASYNCSND; }
static inline int gs_srt_error_timeout(void) { return SRT_ETIMEOUT; }
static inline int gs_srt_error_connection_lost(void) { return SRT_ECONNLOST; }
static inline int gs_srt_error_no_connection(void) { return SRT_ENOCONN; }
static inline int gs_srt_error_connection_failed(void) { return SRT_ECONNFAIL; }
static inline int gs_srt_error_connection_rejected(void) { return SRT_ECONNREJ; }
static inline int gs_srt_error_invalid_socket(void) { return SRT_EINVSOCK; }
