// libnl-3 + libnl-genl-3 for nl80211 (WiFi adapter). Only functions are used: libnl's NLA_PUT*
// and nla_for_each_* macros do not import into Swift.
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <linux/nl80211.h>
