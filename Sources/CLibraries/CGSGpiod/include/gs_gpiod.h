// One C interface over libgpiod v1 (1.6, bookworm) and v2 (2.x, trixie), chosen at compile time.
#pragma once

/// The libgpiod version string (gpiod_api_version / gpiod_version_string).
const char *gs_gpiod_version(void);
