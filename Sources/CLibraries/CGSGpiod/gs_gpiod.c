// API-independent part of the shim: version, errno names, accessors, helpers.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gs_gpiod_private.h"

const char *gs_gpiod_version(void) {
#ifdef GS_GPIOD_V1
    return gpiod_version_string();
#else
    return gpiod_api_version();
#endif
}

int gs_gpiod_api_major(void) {
#ifdef GS_GPIOD_V1
    return 1;
#else
    return 2;
#endif
}

const char *gs_gpiod_errno_name(int err) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
    return strerrorname_np(err);
#else
    switch (err) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case EBUSY: return "EBUSY";
    case EINVAL: return "EINVAL";
    case ENODEV: return "ENODEV";
    case ENOTTY: return "ENOTTY";
    case ENOMEM: return "ENOMEM";
    case EIO: return "EIO";
    case EBADF: return "EBADF";
    default: return NULL;
    }
#endif
}

int gs_gpiod_chip_open_name(const char *name, gs_gpiod_chip **out) {
    char path[4096];
    *out = NULL;
    if (!name || !*name || snprintf(path, sizeof path, "/dev/%s", name) >= (int)sizeof path)
        return EINVAL;
    return gs_gpiod_chip_open_path(path, out);
}

const char *gs_gpiod_chip_path(const gs_gpiod_chip *chip) { return chip->path; }
const char *gs_gpiod_chip_name(const gs_gpiod_chip *chip) { return chip->name; }
const char *gs_gpiod_chip_label(const gs_gpiod_chip *chip) { return chip->label; }
unsigned int gs_gpiod_chip_num_lines(const gs_gpiod_chip *chip) { return chip->num_lines; }
size_t gs_gpiod_request_num_lines(const gs_gpiod_request *request) { return request->count; }

void gs_gpiod_copy(char *dst, const char *src) {
    if (!src) src = "";
    strncpy(dst, src, GS_GPIOD_NAME_MAX - 1);
    dst[GS_GPIOD_NAME_MAX - 1] = '\0';
}

int gs_gpiod_request_index(const gs_gpiod_request *request, unsigned int offset) {
    for (size_t i = 0; i < request->count; i++)
        if (request->offsets[i] == offset) return (int)i;
    return -1;
}

int gs_gpiod_check_offsets(const unsigned int *offsets, size_t count) {
    if (count == 0 || count > GS_GPIOD_MAX_LINES) return EINVAL;
    for (size_t i = 0; i < count; i++)
        for (size_t j = i + 1; j < count; j++)
            if (offsets[i] == offsets[j]) return EINVAL;
    return 0;
}
