// libnl-3 + libnl-genl-3 for nl80211 (WiFi adapter). Only functions are used: libnl's NLA_PUT*
// and nla_for_each_* macros do not import into Swift.
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <linux/genetlink.h>
#include <linux/nl80211.h>

// glibc >= 2.32 (bookworm 2.36, trixie 2.41) exports strerrorname_np; declared here so the module
// needs no _GNU_SOURCE. Gives "ENOENT" for 2, NULL for an unknown value.
extern const char *strerrorname_np(int);

/// Symbolic errno name for error descriptions ("EPROTONOSUPPORT"), NULL if unknown.
static inline const char *gs_nl_errno_name(int err) { return strerrorname_np(err); }
