// One C interface over libgpiod v1 (1.6, bookworm) and v2 (2.x, trixie), chosen at compile time.
// Every call that can fail returns 0 or a positive errno value (never -1 with errno to fetch), so
// Swift gets the exact reason without racing on errno. Strings are NUL-terminated and owned by
// the handle they came from.
#pragma once

#include <stdbool.h>
#include <stddef.h>

/// Kernel limit for chip/line names and consumer labels (GPIO_MAX_NAME_SIZE) including the NUL.
#define GS_GPIOD_NAME_MAX 32

/// An open GPIO chip (wraps `struct gpiod_chip`, plus its path and cached chip info).
typedef struct gs_gpiod_chip gs_gpiod_chip;
/// A set of requested lines on one chip (v1: lines of the chip; v2: `struct gpiod_line_request`).
typedef struct gs_gpiod_request gs_gpiod_request;

/// What the kernel reports about one line, independent of who requested it.
typedef struct gs_gpiod_line_info {
    unsigned int offset;
    bool used;
    bool output;
    bool active_low;
    char name[GS_GPIOD_NAME_MAX];
    char consumer[GS_GPIOD_NAME_MAX];
} gs_gpiod_line_info;

/// The linked libgpiod's version string ("1.6.3", "2.2.1").
const char *gs_gpiod_version(void);
/// The libgpiod API this shim was compiled against: 1 or 2.
int gs_gpiod_api_major(void);
/// The symbolic name of an errno value ("ENOENT"), or NULL if unknown.
const char *gs_gpiod_errno_name(int err);

/// Opens a chip by device path ("/dev/gpiochip0"). On failure returns errno and leaves *out NULL.
int gs_gpiod_chip_open_path(const char *path, gs_gpiod_chip **out);
/// Opens a chip by name ("gpiochip0" → /dev/gpiochip0). Same contract as open_path.
int gs_gpiod_chip_open_name(const char *name, gs_gpiod_chip **out);
/// Closes a chip. Every request made on it must have been released first.
void gs_gpiod_chip_close(gs_gpiod_chip *chip);

/// The device path the chip was opened with.
const char *gs_gpiod_chip_path(const gs_gpiod_chip *chip);
/// The kernel's chip name ("gpiochip0").
const char *gs_gpiod_chip_name(const gs_gpiod_chip *chip);
/// The chip's label ("pl061" …).
const char *gs_gpiod_chip_label(const gs_gpiod_chip *chip);
/// Number of lines the chip exposes.
unsigned int gs_gpiod_chip_num_lines(const gs_gpiod_chip *chip);

/// Reads the kernel's view of one line (used, direction, active-low, name, consumer).
int gs_gpiod_chip_line_info(gs_gpiod_chip *chip, unsigned int offset, gs_gpiod_line_info *out);

/// Requests `count` lines as outputs for `consumer`. `values[i]` is the initial logical value of
/// `offsets[i]`; `active_low` (may be NULL: all active-high) inverts each line's physical level.
int gs_gpiod_request_output(gs_gpiod_chip *chip, const char *consumer,
                            const unsigned int *offsets, const int *values,
                            const bool *active_low, size_t count, gs_gpiod_request **out);
/// Number of lines in the request.
size_t gs_gpiod_request_num_lines(const gs_gpiod_request *request);
/// Sets every line's logical value, in request order.
int gs_gpiod_request_set_values(gs_gpiod_request *request, const int *values);
/// Reads every line's logical value, in request order.
int gs_gpiod_request_get_values(gs_gpiod_request *request, int *values);
/// Sets the logical value of one requested line by offset (EINVAL if not in the request).
int gs_gpiod_request_set_value(gs_gpiod_request *request, unsigned int offset, int value);
/// Reads the logical value of one requested line by offset (EINVAL if not in the request).
int gs_gpiod_request_get_value(gs_gpiod_request *request, unsigned int offset, int *value);
/// Releases the lines and frees the request.
void gs_gpiod_request_release(gs_gpiod_request *request);
