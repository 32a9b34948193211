// Simulated LL-HLS clients against one channel of a running gateway: each client keeps one
// HTTP/1.1 connection and loops { GET the preload-hinted part (the gateway holds it until the
// part is published); GET live.m3u8?_HLS_msn=M&_HLS_part=P for the part just received (answered
// at once, it names the next hint) }, as an LL-HLS player does for every part. For each part
// the time from the first client's response to each client's last byte is recorded: held
// requests are answered when the part is published, so that is published-to-delivered as the
// server serves it. One thread, epoll, nonblocking sockets.
//   ll-clients HOST PORT CHANNEL CLIENTS SECONDS
// Prints one line: clients, parts, deliveries, p50/p99/max delivery spread (ms), misses (hinted
// parts answered 404: their segment ended first), errors (any other failure).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { BUF = 1 << 16, MAX_PARTS = 4096, MAX_SAMPLES = 1 << 22 };

typedef struct {
    int fd;
    int msn, part;           // the hinted part being fetched, or -1
    int wants_part;          // 1: the outstanding request is the part; 0: the playlist
    char head[8192];
    size_t head_len;
    long long body_left;     // bytes of body still to read; -1 while reading the header
    int status;
    char body[16384];        // playlist bodies (parts are read and dropped)
    size_t body_len;
} client_t;

static const char *host, *channel;
static int port;
static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// First delivery of each part (by msn*64+part modulo the table), and the spreads.
static long long part_key[MAX_PARTS];
static double part_first[MAX_PARTS];
static double *spreads;
static long samples, errors, misses, parts_seen;

static void record(int msn, int part, double t) {
    long long key = (long long)msn * 64 + part;
    int slot = (int)(key % MAX_PARTS);
    if (part_key[slot] != key) { part_key[slot] = key; part_first[slot] = t; parts_seen++; }
    if (samples < MAX_SAMPLES) spreads[samples++] = t - part_first[slot];
}

static void send_request(client_t *c, const char *target) {
    char req[512];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, host);
    if (write(c->fd, req, n) != n) errors++;
    c->head_len = 0; c->body_left = -1; c->body_len = 0; c->status = 0;
}

static void request_part(client_t *c) {
    char target[256];
    snprintf(target, sizeof target, "/channels/%s/seg%d.%d.m4s", channel, c->msn, c->part);
    c->wants_part = 1;
    send_request(c, target);
}

static void request_playlist(client_t *c) {
    char target[256];
    if (c->msn >= 0) snprintf(target, sizeof target, "/channels/%s/live.m3u8?_HLS_msn=%d&_HLS_part=%d", channel, c->msn, c->part);
    else snprintf(target, sizeof target, "/channels/%s/live.m3u8", channel);
    c->wants_part = 0;
    send_request(c, target);
}

// The preload hint of a playlist body: URI="segM.P.m4s".
static int parse_hint(client_t *c) {
    c->body[c->body_len < sizeof c->body ? c->body_len : sizeof c->body - 1] = 0;
    const char *h = strstr(c->body, "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"seg");
    if (!h) return -1;
    return sscanf(h + strlen("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"seg"), "%d.%d.", &c->msn, &c->part) == 2 ? 0 : -1;
}

static void response_done(client_t *c) {
    if (c->wants_part) {
        // 404: the hinted part never came (its segment ended early after lost input, as
        // LL-HLS allows); the client reloads the playlist like a player. Anything else is an error.
        if (c->status == 200) record(c->msn, c->part, now_ms()); else if (c->status == 404) misses++; else errors++;
        request_playlist(c);   // the playlist for the part just received names the next hint
    } else {
        if (c->status != 200 || parse_hint(c) != 0) { errors++; c->msn = -1; request_playlist(c); return; }
        request_part(c);
    }
}

static void on_readable(client_t *c) {
    static char buf[BUF];
    for (;;) {
        ssize_t n = read(c->fd, buf, sizeof buf);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n <= 0) { errors++; close(c->fd); c->fd = -1; return; }
        size_t at = 0;
        while (at < (size_t)n) {
            if (c->body_left < 0) {
                size_t take = (size_t)n - at;
                if (c->head_len + take > sizeof c->head - 1) take = sizeof c->head - 1 - c->head_len;
                memcpy(c->head + c->head_len, buf + at, take);
                c->head_len += take;
                c->head[c->head_len] = 0;
                char *end = strstr(c->head, "\r\n\r\n");
                if (!end) { at += take; if (c->head_len >= sizeof c->head - 1) { errors++; close(c->fd); c->fd = -1; return; } continue; }
                size_t header_bytes = (size_t)(end + 4 - c->head);
                at += take - (c->head_len - header_bytes);
                c->status = atoi(c->head + 9);
                char *cl = strcasestr(c->head, "\r\nContent-Length:");
                c->body_left = cl ? atoll(cl + 17) : 0;
                c->body_len = 0;
                if (c->body_left == 0) response_done(c);
            } else {
                size_t take = (size_t)n - at;
                if ((long long)take > c->body_left) take = (size_t)c->body_left;
                if (!c->wants_part && c->body_len + take < sizeof c->body) { memcpy(c->body + c->body_len, buf + at, take); }
                c->body_len += take;
                c->body_left -= (long long)take;
                at += take;
                if (c->body_left == 0) response_done(c);
            }
        }
    }
}

static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }

int main(int argc, char **argv) {
    if (argc != 6) { fprintf(stderr, "usage: ll-clients HOST PORT CHANNEL CLIENTS SECONDS\n"); return 2; }
    host = argv[1]; port = atoi(argv[2]); channel = argv[3];
    int count = atoi(argv[4]); double seconds = atof(argv[5]);
    spreads = malloc(sizeof(double) * MAX_SAMPLES);
    client_t *clients = calloc((size_t)count, sizeof(client_t));
    int ep = epoll_create1(0);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    inet_pton(AF_INET, host, &addr.sin_addr);
    for (int i = 0; i < count; i++) {
        client_t *c = &clients[i];
        c->fd = socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(c->fd, (struct sockaddr *)&addr, sizeof addr) != 0) { perror("connect"); return 1; }
        fcntl(c->fd, F_SETFL, O_NONBLOCK);
        c->msn = -1;
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
        epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
        request_playlist(c);
    }
    double start = now_ms(), warm = start + 3000;   // the first seconds: clients join the live edge
    struct epoll_event events[256];
    while (now_ms() - start < seconds * 1000) {
        int n = epoll_wait(ep, events, 256, 100);
        for (int i = 0; i < n; i++) {
            client_t *c = events[i].data.ptr;
            if (c->fd >= 0) on_readable(c);
        }
        if (now_ms() < warm) { samples = 0; parts_seen = 0; memset(part_key, 0, sizeof part_key); }
    }
    int open = 0;
    for (int i = 0; i < count; i++) if (clients[i].fd >= 0) open++;
    qsort(spreads, (size_t)samples, sizeof(double), cmp);
    double p50 = samples ? spreads[samples / 2] : -1, p99 = samples ? spreads[(long)(samples * 0.99)] : -1,
           max = samples ? spreads[samples - 1] : -1;
    printf("clients=%d open=%d parts=%ld deliveries=%ld p50_ms=%.1f p99_ms=%.1f max_ms=%.1f misses=%ld errors=%ld\n",
           count, open, parts_seen, samples, p50, p99, max, misses, errors);
    return 0;
}
