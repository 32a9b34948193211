// SPDX-License-Identifier: GPL-2.0
/*
 * grandstand_tryboot: the Raspberry Pi firmware's one-shot "tryboot" reboot flag, for Debian's
 * (mainline) kernel.
 *
 * `systemctl reboot '0 tryboot'` is how an rpi4 image boots an update's slot once: the firmware
 * then boots the [tryboot] partition of autoboot.txt (board/rpi4/README.md). Raspberry Pi's own
 * kernel passes the word to the firmware in a reboot notifier of its firmware driver; mainline
 * has no such notifier, so the reboot would be a plain one. This module adds it: on a restart
 * whose command has the word "tryboot" it sets the firmware mailbox property SET_REBOOT_FLAGS
 * (tag 0x00038064, one u32, bit 0 = tryboot) through rpi_firmware_property(). Without the
 * "raspberrypi,bcm2835-firmware" device-tree node (not a Pi) it refuses to load (-ENODEV).
 *
 * GPL-2.0, unlike the rest of Grandstand (Apache-2.0): it uses the firmware driver's GPL-only
 * exports (rpi_firmware_get/put/property).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/of.h>
#include <linux/reboot.h>
#include <linux/string.h>
#include <soc/bcm2835/raspberrypi-firmware.h>

#define GS_TAG_SET_REBOOT_FLAGS	0x00038064	/* not in mainline's enum rpi_firmware_property_tag */
#define GS_REBOOT_FLAG_TRYBOOT	BIT(0)

static struct device_node *gs_fw_node;

/* Whether the reboot command ("PARTITION [FLAG]...", space-separated) has the word "tryboot". */
static bool gs_wants_tryboot(const char *cmd)
{
	static const char word[] = "tryboot";
	const size_t len = sizeof(word) - 1;
	const char *p = cmd;

	while ((p = strstr(p, word))) {
		if ((p == cmd || p[-1] == ' ') && (p[len] == '\0' || p[len] == ' '))
			return true;
		p += len;
	}
	return false;
}

static int gs_tryboot_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	u32 flags = GS_REBOOT_FLAG_TRYBOOT;
	struct rpi_firmware *fw;
	int ret;

	if (action != SYS_RESTART || !data || !gs_wants_tryboot(data))
		return NOTIFY_DONE;
	/* Looked up now, not at load: the firmware driver may probe after modules-load.d ran. */
	fw = rpi_firmware_get(gs_fw_node);
	if (!fw) {
		pr_err("firmware driver not ready: tryboot flag not set, the next boot is a normal one\n");
		return NOTIFY_DONE;
	}
	ret = rpi_firmware_property(fw, GS_TAG_SET_REBOOT_FLAGS, &flags, sizeof(flags));
	rpi_firmware_put(fw);
	if (ret)
		pr_err("SET_REBOOT_FLAGS failed (%d): the next boot is a normal one\n", ret);
	else
		pr_info("tryboot flag set: the firmware boots the [tryboot] partition once\n");
	return NOTIFY_DONE;
}

static struct notifier_block gs_tryboot_nb = {
	.notifier_call = gs_tryboot_notify,
};

static int __init gs_tryboot_init(void)
{
	int ret;

	gs_fw_node = of_find_compatible_node(NULL, NULL, "raspberrypi,bcm2835-firmware");
	if (!gs_fw_node)
		return -ENODEV;
	ret = register_reboot_notifier(&gs_tryboot_nb);
	if (ret) {
		of_node_put(gs_fw_node);
		return ret;
	}
	pr_info("reboot notifier registered ('reboot \"0 tryboot\"' sets the firmware's flag)\n");
	return 0;
}

static void __exit gs_tryboot_exit(void)
{
	unregister_reboot_notifier(&gs_tryboot_nb);
	of_node_put(gs_fw_node);
}

module_init(gs_tryboot_init);
module_exit(gs_tryboot_exit);

MODULE_DESCRIPTION("Raspberry Pi firmware tryboot reboot flag (SET_REBOOT_FLAGS) for mainline kernels");
MODULE_LICENSE("GPL");
