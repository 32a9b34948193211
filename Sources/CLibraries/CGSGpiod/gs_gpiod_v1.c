// libgpiod 1.x (bookworm 1.6): chips by path, one line handle per requested line.
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "gs_gpiod_private.h"

#ifdef GS_GPIOD_V1

int gs_gpiod_chip_open_path(const char *path, gs_gpiod_chip **out) {
    *out = NULL;
    errno = 0;
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return gs_gpiod_errno();
    gs_gpiod_chip *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        gpiod_chip_close(chip);
        return ENOMEM;
    }
    c->chip = chip;
    gs_gpiod_copy(c->name, gpiod_chip_name(chip));
    gs_gpiod_copy(c->label, gpiod_chip_label(chip));
    c->num_lines = gpiod_chip_num_lines(chip);
    *out = c;
    return 0;
}

void gs_gpiod_chip_close(gs_gpiod_chip *chip) {
    if (!chip) return;
    gpiod_chip_close(chip->chip);
    free(chip->path);
    free(chip);
}

int gs_gpiod_chip_line_info(gs_gpiod_chip *chip, unsigned int offset, gs_gpiod_line_info *out) {
    memset(out, 0, sizeof *out);
    errno = 0;
    struct gpiod_line *line = gpiod_chip_get_line(chip->chip, offset);
    if (!line) return gs_gpiod_errno();
    // A line object is cached by the chip; refresh it so another process's request shows up.
    if (gpiod_line_update(line) < 0) return gs_gpiod_errno();
    out->offset = offset;
    out->used = gpiod_line_is_used(line);
    out->output = gpiod_line_direction(line) == GPIOD_LINE_DIRECTION_OUTPUT;
    out->active_low = gpiod_line_active_state(line) == GPIOD_LINE_ACTIVE_STATE_LOW;
    gs_gpiod_copy(out->name, gpiod_line_name(line));
    gs_gpiod_copy(out->consumer, gpiod_line_consumer(line));
    return 0;
}

/// Releases the lines this request acquired (lines[i] is set only once line i is held).
static void release_lines(gs_gpiod_request *r) {
    for (size_t i = 0; i < r->count; i++)
        if (r->lines[i]) gpiod_line_release(r->lines[i]);
}

int gs_gpiod_request_output(gs_gpiod_chip *chip, const char *consumer,
                            const unsigned int *offsets, const int *values,
                            const bool *active_low, size_t count, gs_gpiod_request **out) {
    *out = NULL;
    int err = gs_gpiod_check_offsets(offsets, count);
    if (err) return err;
    gs_gpiod_request *r = calloc(1, sizeof *r);
    if (!r) return ENOMEM;
    r->count = count;
    memcpy(r->offsets, offsets, count * sizeof *offsets);
    // One kernel handle per line: libgpiod 1.x's per-line get/set on a multi-line handle
    // addresses the handle's first line, and its flags are shared by all lines of a handle.
    for (size_t i = 0; i < count && !err; i++) {
        errno = 0;
        struct gpiod_line *line = gpiod_chip_get_line(chip->chip, offsets[i]);
        if (!line) {
            err = gs_gpiod_errno();
            break;
        }
        // Line objects are shared per chip: one held by an earlier request is not ours to touch.
        if (gpiod_line_is_requested(line)) {
            err = EBUSY;
            break;
        }
        struct gpiod_line_request_config config = {
            .consumer = consumer,
            .request_type = GPIOD_LINE_REQUEST_DIRECTION_OUTPUT,
            .flags = (active_low && active_low[i]) ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0,
        };
        errno = 0;
        if (gpiod_line_request(line, &config, values[i] ? 1 : 0) < 0) err = gs_gpiod_errno();
        else r->lines[i] = line;
    }
    if (err) {
        release_lines(r);
        free(r);
        return err;
    }
    *out = r;
    return 0;
}

int gs_gpiod_request_set_values(gs_gpiod_request *request, const int *values) {
    for (size_t i = 0; i < request->count; i++) {
        errno = 0;
        if (gpiod_line_set_value(request->lines[i], values[i] ? 1 : 0) < 0) return gs_gpiod_errno();
    }
    return 0;
}

int gs_gpiod_request_get_values(gs_gpiod_request *request, int *values) {
    for (size_t i = 0; i < request->count; i++) {
        errno = 0;
        int v = gpiod_line_get_value(request->lines[i]);
        if (v < 0) return gs_gpiod_errno();
        values[i] = v;
    }
    return 0;
}

int gs_gpiod_request_set_value(gs_gpiod_request *request, unsigned int offset, int value) {
    int i = gs_gpiod_request_index(request, offset);
    if (i < 0) return EINVAL;
    errno = 0;
    return gpiod_line_set_value(request->lines[i], value ? 1 : 0) < 0 ? gs_gpiod_errno() : 0;
}

int gs_gpiod_request_get_value(gs_gpiod_request *request, unsigned int offset, int *value) {
    int i = gs_gpiod_request_index(request, offset);
    if (i < 0) return EINVAL;
    errno = 0;
    int v = gpiod_line_get_value(request->lines[i]);
    if (v < 0) return gs_gpiod_errno();
    *value = v;
    return 0;
}

void gs_gpiod_request_release(gs_gpiod_request *request) {
    if (!request) return;
    release_lines(request);
    free(request);
}

#endif
