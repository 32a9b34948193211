#include "gs_mhd.h"
