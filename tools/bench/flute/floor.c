/* The reference for tools/bench/flute/receive.sh: what receiving a file channel costs at the
 * least. A live libpcap capture on the same interface and filter as the gateway (TPACKET_V3,
 * 5 ms blocks, like the Capture adapter), each packet's UDP payload written with one pwrite(2)
 * into a spool file (wrapping at 64 MiB), nothing else: no FLUTE parsing, no FEC, no MD5.
 * Runs until SIGTERM/SIGINT; then prints "packets=N cpu_seconds=S" (getrusage: user + system).
 * Usage: flute-floor INTERFACE FILTER SPOOL
 */
#include <fcntl.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

static pcap_t *capture;
static int spool;
static uint64_t packets, offset;

static void stop(int sig) { (void)sig; pcap_breakloop(capture); }

static void packet(u_char *user, const struct pcap_pkthdr *header, const u_char *data) {
    (void)user;
    if (header->caplen < 14 + 20 + 8) return;
    unsigned ip = 14, udp = ip + (data[ip] & 0x0f) * 4, payload = udp + 8;
    if (header->caplen < payload) return;
    size_t length = header->caplen - payload;
    if (offset + length > (64u << 20)) offset = 0;
    if (pwrite(spool, data + payload, length, (off_t)offset) != (ssize_t)length) { perror("pwrite"); pcap_breakloop(capture); }
    offset += length;
    packets++;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s INTERFACE FILTER SPOOL\n", argv[0]);
        return 2;
    }
    char errbuf[PCAP_ERRBUF_SIZE];
    capture = pcap_create(argv[1], errbuf);
    if (!capture) { fprintf(stderr, "flute-floor: %s\n", errbuf); return 1; }
    pcap_set_snaplen(capture, 65535);
    pcap_set_buffer_size(capture, 4 << 20);
    pcap_set_timeout(capture, 5);
    pcap_set_immediate_mode(capture, 0);
    struct bpf_program program;
    if (pcap_activate(capture) < 0 || pcap_compile(capture, &program, argv[2], 1, PCAP_NETMASK_UNKNOWN) < 0 ||
        pcap_setfilter(capture, &program) < 0) {
        fprintf(stderr, "flute-floor: %s\n", pcap_geterr(capture));
        return 1;
    }
    spool = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (spool < 0) { perror("flute-floor: open"); return 1; }
    signal(SIGTERM, stop);
    signal(SIGINT, stop);
    int status;
    while ((status = pcap_dispatch(capture, -1, packet, NULL)) >= 0) {}
    if (status != PCAP_ERROR_BREAK) { fprintf(stderr, "flute-floor: %s\n", pcap_geterr(capture)); return 1; }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    double cpu = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
    printf("packets=%llu cpu_seconds=%.3f\n", (unsigned long long)packets, cpu);
    close(spool);
    return 0;
}
