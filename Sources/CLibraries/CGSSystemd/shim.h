// libsystemd: sd_notify, sd-bus (RAUC over D-Bus), native journal protocol writes (sd_journal_sendv) and sd-journal reads.
#include <sys/uio.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-id128.h>
#include <systemd/sd-bus.h>
