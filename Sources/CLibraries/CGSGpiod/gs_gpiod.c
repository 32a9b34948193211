#include <gpiod.h>
#include "gs_gpiod.h"

#ifdef GPIOD_LINE_BULK_MAX_LINES
#define GS_GPIOD_V1 1
#endif

const char *gs_gpiod_version(void) {
#ifdef GS_GPIOD_V1
    return gpiod_version_string();
#else
    return gpiod_api_version();
#endif
}
