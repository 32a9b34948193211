// Fixed-argument entry points over libmicrohttpd's variadic API.
#pragma once
#include <stdint.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
