// libsrt (OpenSSL flavour, 1.5.x), as seen from Swift (SRT adapter).
#include <srt/srt.h>
