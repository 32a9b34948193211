// libgpiod's header; Swift code uses the CGSGpiod shim, which hides the v1/v2 API split.
#include <gpiod.h>
