// libmicrohttpd's header (needs the socket and stdint types first).
#include <stdint.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
