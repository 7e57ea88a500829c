/*
 * usrsctp_pair: the baseline of the `sctp-core` bench step (Tests/Bench/sctp_core_bench.py). Two usrsctp
 * associations in one process, joined by a lossless in-memory link, move the same workloads as
 * `conftui-bench sctp-core`; CPU time from getrusage. A benchmark, not product code.
 *
 * usrsctp as libwebrtc used it for data channels: usrsctp_init_nothreads (no timer thread: the loop below calls
 * usrsctp_handle_timers), AF_CONN sockets (the "lower layer" is our output callback), one-to-one (SOCK_STREAM)
 * sockets, both ends bound and connecting to each other (the INIT collision of WebRTC), SCTP_NODELAY, non-blocking.
 * The output callback only copies the packet into a FIFO; the loop hands each packet to the other end with
 * usrsctp_conninput (no re-entry into the stack from inside its own callback). The link never loses or delays a
 * packet; when neither end can make progress the loop advances usrsctp's timers by 10 ms (a virtual clock, as the
 * Swift side jumps to its next deadline), so waiting costs no CPU on either side.
 *
 * Usage: usrsctp_pair WORKLOAD MESSAGE_SIZE COUNT   e.g. "large 65536 3200", "small 1024 100000"
 * Prints one line: RESULT {"impl":"usrsctp","workload":...,"bytes":...,"messages":...,"cpu_s":...,"wall_s":...}
 * and SCTP packet figures (largest packet, packets each way).
 * Build: cc -O2 -o usrsctp_pair usrsctp_pair.c -lusrsctp   (Debian: libusrsctp-dev)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <arpa/inet.h>
#include <usrsctp.h>

#define PPID_BINARY 53            /* WebRTC Binary (RFC 8831) */
#define MAX_PACKET 1140           /* the Swift association's maxPacketSize: 1,200-byte DTLS datagrams less slack */
#define SOCKET_BUFFER (1 << 20)   /* 1 MiB each way, the Swift side's receive window */

struct packet { struct packet *next; int to; size_t length; unsigned char data[]; };

static struct packet *head, *tail;
static int ends[2] = {0, 1};      /* the AF_CONN addresses: pointers to these */
static size_t largest;
static long packets[2];

static void die(const char *what) { perror(what); exit(1); }

/* usrsctp's output: `addr` is the sending end's own pointer (see connect_to); queue the packet for the other end. */
static int output(void *addr, void *buffer, size_t length, uint8_t tos, uint8_t set_df) {
    (void)tos; (void)set_df;
    int from = *(int *)addr;
    struct packet *p = malloc(sizeof *p + length);
    if (!p) return ENOMEM;
    p->next = NULL;
    p->to = 1 - from;
    p->length = length;
    memcpy(p->data, buffer, length);
    if (tail) tail->next = p; else head = p;
    tail = p;
    if (length > largest) largest = length;
    packets[from]++;
    return 0;
}

/* Hands every queued packet to its end (answers queue behind them); 1 when there was any. */
static int pump(void) {
    int moved = 0;
    while (head) {
        struct packet *p = head;
        head = p->next;
        if (!head) tail = NULL;
        usrsctp_conninput(&ends[p->to], p->data, p->length, 0);
        free(p);
        moved = 1;
    }
    return moved;
}

static struct socket *endpoint(int self) {
    struct socket *s = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
    if (!s) die("usrsctp_socket");
    if (usrsctp_set_non_blocking(s, 1) < 0) die("usrsctp_set_non_blocking");
    int on = 1;
    if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof on) < 0) die("SCTP_NODELAY");
    int size = SOCKET_BUFFER;
    if (usrsctp_setsockopt(s, SOL_SOCKET, SO_SNDBUF, &size, sizeof size) < 0) die("SO_SNDBUF");
    if (usrsctp_setsockopt(s, SOL_SOCKET, SO_RCVBUF, &size, sizeof size) < 0) die("SO_RCVBUF");
    struct sctp_initmsg init = {.sinit_num_ostreams = 1024, .sinit_max_instreams = 1024};
    if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_INITMSG, &init, sizeof init) < 0) die("SCTP_INITMSG");
    struct sockaddr_conn local = {.sconn_family = AF_CONN, .sconn_port = htons(5000 + self), .sconn_addr = &ends[self]};
    if (usrsctp_bind(s, (struct sockaddr *)&local, sizeof local) < 0) die("usrsctp_bind");
    return s;
}

/* As libwebrtc does, an end's remote address is its own pointer (usrsctp passes the remote's sconn_addr to the
 * output callback and takes one pointer as both addresses in usrsctp_conninput); the ports tell the ends apart. */
static void connect_to(struct socket *s, int self, int other) {
    struct sockaddr_conn remote = {.sconn_family = AF_CONN, .sconn_port = htons(5000 + other), .sconn_addr = &ends[self]};
    if (usrsctp_connect(s, (struct sockaddr *)&remote, sizeof remote) < 0 && errno != EINPROGRESS) die("usrsctp_connect");
}

/* Packets of at most MAX_PACKET bytes, as the Swift side sends (path MTU discovery off), on the one path. */
static void set_mtu(struct socket *s, int self, int other) {
    struct sctp_paddrparams params;
    memset(&params, 0, sizeof params);
    struct sockaddr_conn remote = {.sconn_family = AF_CONN, .sconn_port = htons(5000 + other), .sconn_addr = &ends[self]};
    memcpy(&params.spp_address, &remote, sizeof remote);
    params.spp_flags = SPP_PMTUD_DISABLE;
    params.spp_pathmtu = MAX_PACKET - 12;   /* usrsctp adds the 12-byte common header on top (measured: largest_packet) */
    if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &params, sizeof params) < 0) die("SCTP_PEER_ADDR_PARAMS");
}

static double cpu_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

static double wall_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* Reads what is there; counts bytes and whole messages (MSG_EOR). */
static void drain(struct socket *s, unsigned char *buffer, size_t size, long long *bytes, long *messages) {
    for (;;) {
        struct sctp_rcvinfo info;
        socklen_t infolen = sizeof info, fromlen = 0;
        unsigned int infotype = 0;
        int flags = 0;
        ssize_t n = usrsctp_recvv(s, buffer, size, NULL, &fromlen, &info, &infolen, &infotype, &flags);
        if (n < 0) {
            if (errno == EWOULDBLOCK || errno == EAGAIN) return;
            die("usrsctp_recvv");
        }
        if (n == 0) return;
        if (flags & MSG_NOTIFICATION) continue;
        *bytes += n;
        if (flags & MSG_EOR) (*messages)++;
    }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s WORKLOAD MESSAGE_SIZE COUNT\n", argv[0]);
        return 2;
    }
    const char *workload = argv[1];
    size_t message_size = strtoul(argv[2], NULL, 10);
    long count = strtol(argv[3], NULL, 10);

    usrsctp_init_nothreads(0, output, NULL);
    usrsctp_sysctl_set_sctp_ecn_enable(0);
    usrsctp_sysctl_set_sctp_asconf_enable(0);
    usrsctp_sysctl_set_sctp_auth_enable(0);
    usrsctp_register_address(&ends[0]);
    usrsctp_register_address(&ends[1]);

    struct socket *a = endpoint(0), *b = endpoint(1);
    connect_to(a, 0, 1);
    connect_to(b, 1, 0);

    unsigned char *message = malloc(message_size), *buffer = malloc(256 * 1024);
    if (!message || !buffer) die("malloc");
    for (size_t i = 0; i < message_size; i++) message[i] = (unsigned char)(i * 131 + 7);
    struct sctp_sndinfo sndinfo = {.snd_sid = 0, .snd_ppid = htonl(PPID_BINARY)};

    /* Connected when a first send is taken (ENOTCONN/EINPROGRESS until the handshake ends). */
    int connected = 0;
    for (int round = 0; round < 10000 && !connected; round++) {
        pump();
        ssize_t n = usrsctp_sendv(a, message, 1, NULL, 0, &sndinfo, sizeof sndinfo, SCTP_SENDV_SNDINFO, 0);
        if (n == 1) connected = 1;
        else usrsctp_handle_timers(10);
    }
    if (!connected) { fprintf(stderr, "usrsctp_pair: no association\n"); return 1; }
    long long warm_bytes = 0;
    long warm_messages = 0;
    while (warm_messages < 1) { pump(); drain(b, buffer, 256 * 1024, &warm_bytes, &warm_messages); usrsctp_handle_timers(1); }
    set_mtu(a, 0, 1);
    set_mtu(b, 1, 0);
    largest = 0;
    packets[0] = packets[1] = 0;

    double cpu0 = cpu_seconds(), wall0 = wall_seconds();
    long sent = 0, received = 0, stalls = 0;
    long long bytes = 0;
    while (received < count) {
        int progress = 0;
        while (sent < count) {
            ssize_t n = usrsctp_sendv(a, message, message_size, NULL, 0, &sndinfo, sizeof sndinfo, SCTP_SENDV_SNDINFO, 0);
            if (n < 0) {
                if (errno == EWOULDBLOCK || errno == EAGAIN) break;
                die("usrsctp_sendv");
            }
            if ((size_t)n != message_size) { fprintf(stderr, "usrsctp_pair: short send %zd\n", n); return 1; }
            sent++;
            progress = 1;
        }
        if (pump()) progress = 1;
        long before = received;
        drain(b, buffer, 256 * 1024, &bytes, &received);
        if (received != before) progress = 1;
        if (!progress) {
            usrsctp_handle_timers(10);
            stalls++;
        }
    }
    double cpu = cpu_seconds() - cpu0, wall = wall_seconds() - wall0;
    if (bytes != (long long)message_size * count) {
        fprintf(stderr, "usrsctp_pair: received %lld bytes, expected %lld\n", bytes, (long long)message_size * count);
        return 1;
    }
    printf("RESULT {\"impl\":\"usrsctp\",\"workload\":\"%s\",\"message_size\":%zu,\"messages\":%ld,\"bytes\":%lld,"
           "\"cpu_s\":%.4f,\"wall_s\":%.4f,\"largest_packet\":%zu,\"packets_ab\":%ld,\"packets_ba\":%ld,\"timer_jumps\":%ld}\n",
           workload, message_size, received, bytes, cpu, wall, largest, packets[0], packets[1], stalls);

    usrsctp_close(a);
    usrsctp_close(b);
    for (int i = 0; i < 200 && pump(); i++) usrsctp_handle_timers(10);
    usrsctp_deregister_address(&ends[0]);
    usrsctp_deregister_address(&ends[1]);
    free(message);
    free(buffer);
    return 0;
}
