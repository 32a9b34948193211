// libgpiod 2.x (trixie 2.2): chip info objects, line settings/config and line requests.
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "gs_gpiod_private.h"

#ifndef GS_GPIOD_V1

int gs_gpiod_chip_open_path(const char *path, gs_gpiod_chip **out) {
    *out = NULL;
    errno = 0;
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return gs_gpiod_errno();
    errno = 0;
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    if (!info) {
        int err = gs_gpiod_errno();
        gpiod_chip_close(chip);
        return err;
    }
    gs_gpiod_chip *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        gpiod_chip_info_free(info);
        gpiod_chip_close(chip);
        return ENOMEM;
    }
    c->chip = chip;
    gs_gpiod_copy(c->name, gpiod_chip_info_get_name(info));
    gs_gpiod_copy(c->label, gpiod_chip_info_get_label(info));
    c->num_lines = (unsigned int)gpiod_chip_info_get_num_lines(info);
    gpiod_chip_info_free(info);
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
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip->chip, offset);
    if (!info) return gs_gpiod_errno();
    out->offset = offset;
    out->used = gpiod_line_info_is_used(info);
    out->output = gpiod_line_info_get_direction(info) == GPIOD_LINE_DIRECTION_OUTPUT;
    out->active_low = gpiod_line_info_is_active_low(info);
    gs_gpiod_copy(out->name, gpiod_line_info_get_name(info));
    gs_gpiod_copy(out->consumer, gpiod_line_info_get_consumer(info));
    gpiod_line_info_free(info);
    return 0;
}

int gs_gpiod_request_output(gs_gpiod_chip *chip, const char *consumer,
                            const unsigned int *offsets, const int *values,
                            const bool *active_low, size_t count, gs_gpiod_request **out) {
    *out = NULL;
    int err = gs_gpiod_check_offsets(offsets, count);
    if (err) return err;
    gs_gpiod_request *r = calloc(1, sizeof *r);
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    struct gpiod_line_config *line_cfg = gpiod_line_config_new();
    struct gpiod_request_config *req_cfg = gpiod_request_config_new();
    if (!r || !settings || !line_cfg || !req_cfg) err = ENOMEM;
    for (size_t i = 0; i < count && !err; i++) {
        gpiod_line_settings_reset(settings);
        errno = 0;
        if (gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT) < 0 ||
            gpiod_line_settings_set_output_value(settings, values[i] ? GPIOD_LINE_VALUE_ACTIVE
                                                                     : GPIOD_LINE_VALUE_INACTIVE) < 0) {
            err = gs_gpiod_errno();
            break;
        }
        gpiod_line_settings_set_active_low(settings, active_low && active_low[i]);
        // Settings are copied into the config, so one settings object serves every line.
        if (gpiod_line_config_add_line_settings(line_cfg, &offsets[i], 1, settings) < 0)
            err = gs_gpiod_errno();
    }
    if (!err) {
        gpiod_request_config_set_consumer(req_cfg, consumer);
        errno = 0;
        if (!(r->request = gpiod_chip_request_lines(chip->chip, req_cfg, line_cfg)))
            err = gs_gpiod_errno();
    }
    gpiod_request_config_free(req_cfg);
    gpiod_line_config_free(line_cfg);
    gpiod_line_settings_free(settings);
    if (err) {
        free(r);
        return err;
    }
    r->count = count;
    memcpy(r->offsets, offsets, count * sizeof *offsets);
    *out = r;
    return 0;
}

int gs_gpiod_request_set_values(gs_gpiod_request *request, const int *values) {
    enum gpiod_line_value v[GS_GPIOD_MAX_LINES];
    for (size_t i = 0; i < request->count; i++)
        v[i] = values[i] ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE;
    errno = 0;
    // The subset call with our own offsets pins the order to the caller's, not the library's.
    if (gpiod_line_request_set_values_subset(request->request, request->count, request->offsets, v) < 0)
        return gs_gpiod_errno();
    return 0;
}

int gs_gpiod_request_get_values(gs_gpiod_request *request, int *values) {
    enum gpiod_line_value v[GS_GPIOD_MAX_LINES];
    errno = 0;
    if (gpiod_line_request_get_values_subset(request->request, request->count, request->offsets, v) < 0)
        return gs_gpiod_errno();
    for (size_t i = 0; i < request->count; i++) values[i] = v[i] == GPIOD_LINE_VALUE_ACTIVE;
    return 0;
}

int gs_gpiod_request_set_value(gs_gpiod_request *request, unsigned int offset, int value) {
    if (gs_gpiod_request_index(request, offset) < 0) return EINVAL;
    errno = 0;
    enum gpiod_line_value v = value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE;
    return gpiod_line_request_set_value(request->request, offset, v) < 0 ? gs_gpiod_errno() : 0;
}

int gs_gpiod_request_get_value(gs_gpiod_request *request, unsigned int offset, int *value) {
    if (gs_gpiod_request_index(request, offset) < 0) return EINVAL;
    errno = 0;
    enum gpiod_line_value v = gpiod_line_request_get_value(request->request, offset);
    if (v == GPIOD_LINE_VALUE_ERROR) return gs_gpiod_errno();
    *value = v == GPIOD_LINE_VALUE_ACTIVE;
    return 0;
}

void gs_gpiod_request_release(gs_gpiod_request *request) {
    if (!request) return;
    gpiod_line_request_release(request->request);
    free(request);
}

#endif
