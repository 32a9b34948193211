// Version and commit of this build. `make` writes generated/build_stamp.h (ignored by git) from
// VERSION and `git describe`; a plain `swift build` falls back to "unknown".
#pragma once

#if __has_include("generated/build_stamp.h")
#include "generated/build_stamp.h"
#endif

#ifndef GS_BUILD_VERSION
#define GS_BUILD_VERSION "0.0.0-dev"
#endif
#ifndef GS_BUILD_COMMIT
#define GS_BUILD_COMMIT "unknown"
#endif

const char *gs_build_version(void);
const char *gs_build_commit(void);
