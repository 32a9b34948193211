/* The raw reference for tools/bench/ingest.sh: reads a capture with libpcap through a BPF filter
 * and touches every byte of every packet that passes (a byte sum), nothing else. Prints
 * "packets=N bytes=B seconds=S packets_per_second=R sum=X" on one line.
 * Usage: pcap-read FILE [FILTER]
 */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [FILTER]\n", argv[0]);
        return 2;
    }
    char errbuf[PCAP_ERRBUF_SIZE];
    double start = now();
    pcap_t *p = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, errbuf);
    if (!p) {
        fprintf(stderr, "pcap-read: %s\n", errbuf);
        return 1;
    }
    if (argc > 2) {
        struct bpf_program program;
        if (pcap_compile(p, &program, argv[2], 1, PCAP_NETMASK_UNKNOWN) < 0 || pcap_setfilter(p, &program) < 0) {
            fprintf(stderr, "pcap-read: filter: %s\n", pcap_geterr(p));
            return 1;
        }
        pcap_freecode(&program);
    }
    struct pcap_pkthdr *header;
    const u_char *data;
    uint64_t packets = 0, bytes = 0, sum = 0;
    int status;
    while ((status = pcap_next_ex(p, &header, &data)) == 1) {
        packets++;
        bytes += header->caplen;
        for (uint32_t i = 0; i < header->caplen; i++) sum += data[i];
        sum += (uint64_t)header->ts.tv_usec;
    }
    if (status != PCAP_ERROR_BREAK && status != -2) {
        fprintf(stderr, "pcap-read: read: %s\n", pcap_geterr(p));
        return 1;
    }
    pcap_close(p);
    double seconds = now() - start;
    printf("packets=%llu bytes=%llu seconds=%.6f packets_per_second=%.0f sum=%llu\n", (unsigned long long)packets,
           (unsigned long long)bytes, seconds, packets / seconds, (unsigned long long)sum);
    return 0;
}
