#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
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

// MARK: Connection tracker

struct gs_mhd_conn {
    int fd;
    int cut;
    /// Monotonic ms since when it waits for a request's headers; -1 while a request runs.
    _Atomic int64_t waiting_since_ms;
    struct gs_mhd_conn *prev, *next;
};

struct gs_mhd_tracker {
    pthread_mutex_t lock;            // guards the list, `stop`, `cut`
    pthread_cond_t wake;
    struct gs_mhd_conn *head;
    uint64_t open, cut;
    int64_t header_timeout_ms;
    int stop, running;
    pthread_t thread;
    void (*tick)(void *);
    void *tick_cls;
};

static int64_t gs_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/// MHD_OPTION_NOTIFY_CONNECTION, on the daemon's thread. CLOSED comes before libmicrohttpd
/// closes the socket, and the reaper only calls shutdown() under the lock on listed
/// connections, so it never touches a closed (or reused) descriptor.
static void gs_notify_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                                 enum MHD_ConnectionNotificationCode code) {
    struct gs_mhd_tracker *tracker = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        struct gs_mhd_conn *conn = calloc(1, sizeof *conn);
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (conn == NULL || info == NULL) { free(conn); *socket_context = NULL; return; }
        conn->fd = info->connect_fd;
        atomic_store(&conn->waiting_since_ms, gs_now_ms());
        pthread_mutex_lock(&tracker->lock);
        conn->next = tracker->head;
        if (tracker->head) tracker->head->prev = conn;
        tracker->head = conn;
        tracker->open++;
        pthread_mutex_unlock(&tracker->lock);
        *socket_context = conn;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        struct gs_mhd_conn *conn = *socket_context;
        if (conn == NULL) return;
        pthread_mutex_lock(&tracker->lock);
        if (conn->prev) conn->prev->next = conn->next; else tracker->head = conn->next;
        if (conn->next) conn->next->prev = conn->prev;
        tracker->open--;
        pthread_mutex_unlock(&tracker->lock);
        free(conn);
        *socket_context = NULL;
    }
}

static struct gs_mhd_conn *gs_conn_of(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

void gs_mhd_request_began(struct MHD_Connection *connection) {
    struct gs_mhd_conn *conn = gs_conn_of(connection);
    if (conn) atomic_store(&conn->waiting_since_ms, -1);
}

void gs_mhd_request_ended(struct MHD_Connection *connection) {
    struct gs_mhd_conn *conn = gs_conn_of(connection);
    if (conn) atomic_store(&conn->waiting_since_ms, gs_now_ms());
}

#define GS_TICK_MS 250

static void *gs_tracker_main(void *arg) {
    struct gs_mhd_tracker *tracker = arg;
    pthread_mutex_lock(&tracker->lock);
    while (!tracker->stop) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += GS_TICK_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) { until.tv_sec += 1; until.tv_nsec -= 1000000000L; }
        pthread_cond_timedwait(&tracker->wake, &tracker->lock, &until);
        if (tracker->stop) break;
        if (tracker->header_timeout_ms > 0) {
            int64_t now = gs_now_ms();
            for (struct gs_mhd_conn *conn = tracker->head; conn; conn = conn->next) {
                int64_t since = atomic_load(&conn->waiting_since_ms);
                if (since < 0 || conn->cut || now - since < tracker->header_timeout_ms) continue;
                // EOF for libmicrohttpd's next read: it closes the connection on its own thread.
                shutdown(conn->fd, SHUT_RDWR);
                conn->cut = 1;
                tracker->cut++;
            }
        }
        if (tracker->tick) {
            pthread_mutex_unlock(&tracker->lock);
            tracker->tick(tracker->tick_cls);
            pthread_mutex_lock(&tracker->lock);
        }
    }
    pthread_mutex_unlock(&tracker->lock);
    return NULL;
}

static struct gs_mhd_tracker *gs_tracker_create(int64_t header_timeout_ms, void (*tick)(void *), void *tick_cls) {
    struct gs_mhd_tracker *tracker = calloc(1, sizeof *tracker);
    if (tracker == NULL) return NULL;
    pthread_mutex_init(&tracker->lock, NULL);
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&tracker->wake, &attributes);
    pthread_condattr_destroy(&attributes);
    tracker->header_timeout_ms = header_timeout_ms;
    tracker->tick = tick;
    tracker->tick_cls = tick_cls;
    return tracker;
}

static void gs_tracker_stop(struct gs_mhd_tracker *tracker) {
    pthread_mutex_lock(&tracker->lock);
    tracker->stop = 1;
    pthread_cond_signal(&tracker->wake);
    pthread_mutex_unlock(&tracker->lock);
    if (tracker->running) pthread_join(tracker->thread, NULL);
    tracker->running = 0;
}

static void gs_tracker_free(struct gs_mhd_tracker *tracker) {
    // Connections still listed belong to a daemon that was stopped: its CLOSED calls ran.
    pthread_cond_destroy(&tracker->wake);
    pthread_mutex_destroy(&tracker->lock);
    free(tracker);
}

struct gs_mhd_tracker_stats gs_mhd_tracker_stats(struct gs_mhd_tracker *tracker) {
    pthread_mutex_lock(&tracker->lock);
    struct gs_mhd_tracker_stats stats = { tracker->open, tracker->cut };
    pthread_mutex_unlock(&tracker->lock);
    return stats;
}

/// URL and query unescaping that refuses `%00`: a decoded NUL would cut the C string short and
/// make `/x%00.jpg` look like `/x`. Such a string stays undecoded (and matches no route).
static size_t gs_unescape(void *cls, struct MHD_Connection *connection, char *text) {
    (void)cls; (void)connection;
    for (const char *p = text; (p = strchr(p, '%')) != NULL; p++) {
        if (p[1] == '0' && p[2] == '0') return strlen(text);
    }
    return MHD_http_unescape(text);
}

// MARK: Daemon

struct MHD_Daemon *gs_mhd_start(unsigned int flags, const struct sockaddr *address,
                                const struct gs_mhd_limits *limits,
                                MHD_AccessHandlerCallback handler, void *handler_cls,
                                MHD_RequestCompletedCallback completed, void *completed_cls,
                                void (*tick)(void *), void *tick_cls,
                                struct gs_mhd_tracker **tracker_out, uint16_t *bound_port) {
    if (address->sa_family == AF_INET6) flags |= MHD_USE_IPv6;
    struct gs_mhd_tracker *tracker = gs_tracker_create(limits->header_timeout_ms, tick, tick_cls);
    if (tracker == NULL) { errno = ENOMEM; return NULL; }
    int fd = gs_listen(address, 1024, bound_port);
    if (fd < 0) { int saved = errno; gs_tracker_free(tracker); errno = saved; return NULL; }
    struct MHD_OptionItem options[12];
    int n = 0;
    options[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, fd, NULL };
    options[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, completed_cls };
    options[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)gs_notify_connection, tracker };
    options[n++] = (struct MHD_OptionItem){ MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)gs_unescape, NULL };
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
        gs_tracker_free(tracker);
        errno = saved;
        return NULL;
    }
    if (pthread_create(&tracker->thread, NULL, gs_tracker_main, tracker) == 0) {
        tracker->running = 1;
    } else {
        int saved = errno;
        MHD_stop_daemon(daemon);
        gs_tracker_free(tracker);
        errno = saved;
        return NULL;
    }
    *tracker_out = tracker;
    return daemon;
}

void gs_mhd_stop(struct MHD_Daemon *daemon, struct gs_mhd_tracker *tracker) {
    // The tracker's thread first: it may shut down sockets the daemon is about to close.
    gs_tracker_stop(tracker);
    MHD_stop_daemon(daemon);
    gs_tracker_free(tracker);
}

const struct sockaddr *gs_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

struct MHD_Response *gs_mhd_response_copying(const void *body, size_t size) {
    return MHD_create_response_from_buffer(size, (void *)body, MHD_RESPMEM_MUST_COPY);
}

struct MHD_Response *gs_mhd_response_borrowing(const void *body, size_t size,
                                               void (*release)(void *), void *release_cls) {
    return MHD_create_response_from_buffer_with_free_callback_cls(size, (void *)body, release, release_cls);
}

struct MHD_Response *gs_mhd_response_streaming(size_t block_size, MHD_ContentReaderCallback reader,
                                               void *cls, MHD_ContentReaderFreeCallback release) {
    return MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, block_size, reader, cls, release);
}

int gs_mhd_memfd(const char *name) {
    return memfd_create(name, MFD_CLOEXEC);
}

struct MHD_Response *gs_mhd_response_from_fd(int fd, uint64_t offset, uint64_t size) {
    int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (own < 0) return NULL;
    struct MHD_Response *response = MHD_create_response_from_fd_at_offset64(size, own, offset);
    if (response == NULL) close(own);
    return response;
}
