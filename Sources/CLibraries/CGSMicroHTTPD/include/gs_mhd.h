// Fixed-argument entry points over libmicrohttpd's variadic API (MHD_start_daemon,
// MHD_get_daemon_info, MHD_get_connection_info), so Swift can call them, plus the connection
// tracker that enforces the request-header deadline (slow clients, slowloris).
#pragma once
#include <stdint.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Limits applied to one listener; zero means libmicrohttpd's default (or "off" for the tracker).
struct gs_mhd_limits {
    unsigned int connection_limit;      ///< MHD_OPTION_CONNECTION_LIMIT
    unsigned int per_ip_limit;          ///< MHD_OPTION_PER_IP_CONNECTION_LIMIT
    unsigned int timeout_seconds;       ///< MHD_OPTION_CONNECTION_TIMEOUT (no traffic at all)
    size_t connection_memory_limit;     ///< MHD_OPTION_CONNECTION_MEMORY_LIMIT (bounds header size)
    unsigned int thread_pool_size;      ///< MHD_OPTION_THREAD_POOL_SIZE
    unsigned int header_timeout_ms;     ///< a request's line and headers must arrive within this
};

/// Tracks every open connection of one daemon (MHD_OPTION_NOTIFY_CONNECTION) and whether it is
/// waiting for a request. Its thread shuts down connections that waited longer than the header
/// deadline, whether silent or trickling bytes, and calls `tick` every `tick_ms` for the caller's
/// own timers (stream heartbeats).
struct gs_mhd_tracker;

struct gs_mhd_tracker_stats {
    uint64_t open;          ///< connections open now
    uint64_t cut;           ///< connections shut down at the header deadline, in total
};

/// Binds and listens on `address` (IPv4 or IPv6, port inside; port 0 picks one), then starts a
/// daemon on that socket. We bind ourselves so a failure reports bind's own errno: libmicrohttpd
/// 1.0.1 closes its socket twice after a failed bind and the errno it leaves is EBADF.
/// The tracker (created here, returned in `*tracker`) enforces `limits->header_timeout_ms`.
/// Returns NULL with errno set on failure; `*bound_port` receives the port actually bound.
struct MHD_Daemon *gs_mhd_start(unsigned int flags, const struct sockaddr *address,
                                const struct gs_mhd_limits *limits,
                                MHD_AccessHandlerCallback handler, void *handler_cls,
                                MHD_RequestCompletedCallback completed, void *completed_cls,
                                void (*tick)(void *), void *tick_cls,
                                struct gs_mhd_tracker **tracker, uint16_t *bound_port);

/// Stops the daemon, then the tracker's thread, and frees the tracker.
void gs_mhd_stop(struct MHD_Daemon *daemon, struct gs_mhd_tracker *tracker);

/// The connection's request headers are complete (its deadline no longer applies).
void gs_mhd_request_began(struct MHD_Connection *connection);
/// The connection's request is done; it now waits for the next one (the deadline restarts).
void gs_mhd_request_ended(struct MHD_Connection *connection);

struct gs_mhd_tracker_stats gs_mhd_tracker_stats(struct gs_mhd_tracker *tracker);

/// The peer address of a connection, or NULL.
const struct sockaddr *gs_mhd_client_address(struct MHD_Connection *connection);

/// A response whose body libmicrohttpd copies (MHD_RESPMEM_MUST_COPY), so Swift's buffer may go.
struct MHD_Response *gs_mhd_response_copying(const void *body, size_t size);

/// A response over a buffer the caller keeps alive until `release(release_cls)` (no copy).
struct MHD_Response *gs_mhd_response_borrowing(const void *body, size_t size,
                                               void (*release)(void *), void *release_cls);

/// A body of unknown length produced by `reader` (chunked on HTTP/1.1); `release` runs once when
/// libmicrohttpd is done with it (client gone or stream ended).
struct MHD_Response *gs_mhd_response_streaming(size_t block_size, MHD_ContentReaderCallback reader,
                                               void *cls, MHD_ContentReaderFreeCallback release);

/// An anonymous memory file (memfd_create, close-on-exec), or -1 with errno set.
int gs_mhd_memfd(const char *name);

/// A response sending `size` bytes of `fd` from `offset` (sendfile where the platform has it).
/// `fd` stays the caller's: the response owns a duplicate. NULL on failure.
struct MHD_Response *gs_mhd_response_from_fd(int fd, uint64_t offset, uint64_t size);
