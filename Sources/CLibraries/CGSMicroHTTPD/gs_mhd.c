#include <errno.h>
#include <netinet/in.h>
#include <unistd.h>
#include "gs_mhd.h"

/// A listening TCP socket on `address`, or -1 with errno set.
static int gs_listen(const struct sockaddr *address, int backlog, uint16_t *bound_port) {
    int family = address->sa_family;
    socklen_t length = family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
    struct sockaddr_storage bound;
    socklen_t bound_length = sizeof bound;
    if (bind(fd, address, length) != 0 || listen(fd, backlog) != 0 ||
        getsockname(fd, (struct sockaddr *)&bound, &bound_length) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    *bound_port = ntohs(family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                           : ((struct sockaddr_in *)&bound)->sin_port);
    return fd;
}

struct MHD_Daemon *gs_mhd_start(unsigned int flags, const struct sockaddr *address,
                                const struct gs_mhd_limits *limits,
                                MHD_AccessHandlerCallback handler, void *handler_cls,
                                MHD_RequestCompletedCallback completed, void *completed_cls,
                                uint16_t *bound_port) {
    if (address->sa_family == AF_INET6) flags |= MHD_USE_IPv6;
    int fd = gs_listen(address, 128, bound_port);
    if (fd < 0) return NULL;
    struct MHD_OptionItem options[8];
    int n = 0;
    options[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, fd, NULL };
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
    struct MHD_Daemon *daemon = MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                                                 MHD_OPTION_ARRAY, options, MHD_OPTION_END);
    if (daemon == NULL) {
        int saved = errno ? errno : EINVAL;
        close(fd);
        errno = saved;
    }
    return daemon;
}

const struct sockaddr *gs_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

struct MHD_Response *gs_mhd_response_copying(const void *body, size_t size) {
    return MHD_create_response_from_buffer(size, (void *)body, MHD_RESPMEM_MUST_COPY);
}
