#include <errno.h>
#include <netinet/in.h>
#include "gs_mhd.h"

struct MHD_Daemon *gs_mhd_start(unsigned int flags, const struct sockaddr *address,
                                const struct gs_mhd_limits *limits,
                                MHD_AccessHandlerCallback handler, void *handler_cls,
                                MHD_RequestCompletedCallback completed, void *completed_cls) {
    uint16_t port = 0;
    if (address->sa_family == AF_INET6) {
        flags |= MHD_USE_IPv6;
        port = ntohs(((const struct sockaddr_in6 *)address)->sin6_port);
    } else {
        port = ntohs(((const struct sockaddr_in *)address)->sin_port);
    }
    struct MHD_OptionItem options[8];
    int n = 0;
    options[n++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, (void *)address };
    options[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, completed_cls };
    if (limits->connection_limit)
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, limits->connection_limit, NULL };
    if (limits->per_ip_limit)
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits->per_ip_limit, NULL };
    if (limits->timeout_seconds)
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, limits->timeout_seconds, NULL };
    if (limits->connection_memory_limit)
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)limits->connection_memory_limit, NULL };
    if (limits->thread_pool_size > 1)
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, limits->thread_pool_size, NULL };
    options[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
    errno = 0;
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

uint16_t gs_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

const struct sockaddr *gs_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

struct MHD_Response *gs_mhd_response_copying(const void *body, size_t size) {
    return MHD_create_response_from_buffer(size, (void *)body, MHD_RESPMEM_MUST_COPY);
}
