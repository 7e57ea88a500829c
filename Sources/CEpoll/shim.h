/* Linux epoll(7) for the signaling server's event loop. Glibc's Swift module does not export
   <sys/epoll.h>, and struct epoll_event is packed on x86-64, so Swift only sees these wrappers,
   which take and return plain ints. */
#include <sys/epoll.h>

static inline int cepoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/* op: 0 add, 1 modify, 2 delete. events: EPOLLIN/EPOLLOUT bits (same values as POLLIN/POLLOUT). */
static inline int cepoll_ctl(int ep, int op, int fd, unsigned int events) {
    struct epoll_event e;
    e.events = events;
    e.data.fd = fd;
    int code = op == 0 ? EPOLL_CTL_ADD : op == 1 ? EPOLL_CTL_MOD : EPOLL_CTL_DEL;
    return epoll_ctl(ep, code, fd, &e);
}

/* Waits like epoll_wait and copies the ready descriptors and their events out (max <= 1024). */
static inline int cepoll_wait(int ep, int *fds, unsigned int *events, int max, int timeout_ms) {
    struct epoll_event ready[1024];
    if (max > 1024) max = 1024;
    int n = epoll_wait(ep, ready, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        fds[i] = ready[i].data.fd;
        events[i] = ready[i].events;
    }
    return n;
}
