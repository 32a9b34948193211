// Fixed-argument entry points over libmicrohttpd's variadic API (MHD_start_daemon,
// MHD_get_daemon_info, MHD_get_connection_info), so Swift can call them.
#pragma once
#include <stdint.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Limits applied to one listener; zero means libmicrohttpd's default.
struct gs_mhd_limits {
    unsigned int connection_limit;      ///< MHD_OPTION_CONNECTION_LIMIT
    unsigned int per_ip_limit;          ///< MHD_OPTION_PER_IP_CONNECTION_LIMIT
    unsigned int timeout_seconds;       ///< MHD_OPTION_CONNECTION_TIMEOUT (idle clients)
    size_t connection_memory_limit;     ///< MHD_OPTION_CONNECTION_MEMORY_LIMIT (bounds header size)
    unsigned int thread_pool_size;      ///< MHD_OPTION_THREAD_POOL_SIZE
};

/// Binds and listens on `address` (IPv4 or IPv6, port inside; port 0 picks one), then starts a
/// daemon on that socket. We bind ourselves so a failure reports bind's own errno: libmicrohttpd
/// 1.0.1 closes its socket twice after a failed bind and the errno it leaves is EBADF.
/// Returns NULL with errno set on failure; `*bound_port` receives the port actually bound.
struct MHD_Daemon *gs_mhd_start(unsigned int flags, const struct sockaddr *address,
                                const struct gs_mhd_limits *limits,
                                MHD_AccessHandlerCallback handler, void *handler_cls,
                                MHD_RequestCompletedCallback completed, void *completed_cls,
                                uint16_t *bound_port);

/// The peer address of a connection, or NULL.
const struct sockaddr *gs_mhd_client_address(struct MHD_Connection *connection);

/// A response whose body libmicrohttpd copies (MHD_RESPMEM_MUST_COPY), so Swift's buffer may go.
struct MHD_Response *gs_mhd_response_copying(const void *body, size_t size);
