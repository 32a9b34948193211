// Shared between the shim's files: the libgpiod API detection and the handle layouts.
#pragma once

#include <errno.h>
#include <gpiod.h>
#include "gs_gpiod.h"

// libgpiod 1.x defines the bulk-line limit in gpiod.h; 2.x removed struct gpiod_line_bulk.
#ifdef GPIOD_LINE_BULK_MAX_LINES
#define GS_GPIOD_V1 1
#endif

/// Both APIs cap one request at 64 lines (v1 bulk size, v2 GPIO_V2_LINES_MAX).
#define GS_GPIOD_MAX_LINES 64

struct gs_gpiod_chip {
    struct gpiod_chip *chip;
    char *path;
    char name[GS_GPIOD_NAME_MAX];
    char label[GS_GPIOD_NAME_MAX];
    unsigned int num_lines;
};

struct gs_gpiod_request {
    size_t count;
    unsigned int offsets[GS_GPIOD_MAX_LINES];
#ifdef GS_GPIOD_V1
    struct gpiod_line *lines[GS_GPIOD_MAX_LINES]; // owned by the chip; released, not freed
#else
    struct gpiod_line_request *request;
#endif
};

/// errno after a failed libgpiod call, never 0 (a library that forgot to set it gives EIO).
static inline int gs_gpiod_errno(void) { return errno ? errno : EIO; }

/// Copies a possibly-NULL string into a fixed buffer, always NUL-terminated.
void gs_gpiod_copy(char *dst, const char *src);
/// Index of `offset` in the request, or -1.
int gs_gpiod_request_index(const gs_gpiod_request *request, unsigned int offset);
/// Validates a request's shape: 1…64 lines, no duplicate offsets. Returns 0 or EINVAL.
int gs_gpiod_check_offsets(const unsigned int *offsets, size_t count);
