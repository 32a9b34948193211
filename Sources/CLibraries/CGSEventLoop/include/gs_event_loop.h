// Fixed-argument entry points for the HTTP engine's epoll loop: Glibc's Swift module does not
// carry sys/epoll.h, eventfd, sendfile, accept4 or memfd_create, and epoll_event is packed on x86_64
// (its data union differs by architecture), so ids and flags are passed as plain integers.
#ifndef GS_EVENT_LOOP_H
#define GS_EVENT_LOOP_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

enum {
    GS_EL_IN = 0x001,
    GS_EL_OUT = 0x004,
    GS_EL_ERR = 0x008,
    GS_EL_HUP = 0x010,
    GS_EL_RDHUP = 0x2000,
};
#define GS_EL_ET (1u << 31)

/// epoll_create1(EPOLL_CLOEXEC).
int gs_el_create(void);
/// Adds `fd` with `events` (GS_EL_* bits; `edge` adds EPOLLET), reporting `id`.
int gs_el_add(int epfd, int fd, uint32_t events, int edge, uint64_t id);
int gs_el_remove(int epfd, int fd);
/// epoll_wait into parallel arrays (at most 256 events).
int gs_el_wait(int epfd, uint64_t *ids, uint32_t *events, int max, int timeout_ms);
/// eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC).
int gs_el_eventfd(void);
/// accept4(…, SOCK_NONBLOCK | SOCK_CLOEXEC).
int gs_el_accept(int fd, struct sockaddr *address, socklen_t *length);
/// sendfile(2) with a 64-bit offset, advanced by what was sent.
ssize_t gs_el_sendfile(int out_fd, int in_fd, int64_t *offset, size_t count);
/// memfd_create(name, MFD_CLOEXEC): an anonymous memory file for answers sent with sendfile.
int gs_el_memfd(const char *name);

#endif
