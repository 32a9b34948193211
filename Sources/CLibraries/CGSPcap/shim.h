// libpcap, as seen from Swift (Capture adapter).
#include <pcap/pcap.h>
