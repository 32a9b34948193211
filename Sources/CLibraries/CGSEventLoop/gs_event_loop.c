#define _GNU_SOURCE
#include "gs_event_loop.h"

#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>

_Static_assert(GS_EL_IN == EPOLLIN && GS_EL_OUT == EPOLLOUT && GS_EL_ERR == EPOLLERR && GS_EL_HUP == EPOLLHUP
               && GS_EL_RDHUP == EPOLLRDHUP && GS_EL_ET == (uint32_t)EPOLLET, "epoll flag values");

int gs_el_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int gs_el_add(int epfd, int fd, uint32_t events, int edge, uint64_t id) {
    struct epoll_event event = {0};
    event.events = events | (edge ? EPOLLET : 0);
    event.data.u64 = id;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

int gs_el_remove(int epfd, int fd) {
    struct epoll_event event = {0};
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &event);
}

int gs_el_wait(int epfd, uint64_t *ids, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event ready[256];
    if (max > 256) max = 256;
    int n = epoll_wait(epfd, ready, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        ids[i] = ready[i].data.u64;
        events[i] = ready[i].events;
    }
    return n;
}

int gs_el_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int gs_el_accept(int fd, struct sockaddr *address, socklen_t *length) {
    return accept4(fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

ssize_t gs_el_sendfile(int out_fd, int in_fd, int64_t *offset, size_t count) {
    off_t position = (off_t)*offset;
    ssize_t sent = sendfile(out_fd, in_fd, &position, count);
    *offset = (int64_t)position;
    return sent;
}

int gs_el_memfd(const char *name) { return memfd_create(name, MFD_CLOEXEC); }
