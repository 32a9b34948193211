#include "gs_build_stamp.h"

const char *gs_build_version(void) { return GS_BUILD_VERSION; }
const char *gs_build_commit(void) { return GS_BUILD_COMMIT; }
