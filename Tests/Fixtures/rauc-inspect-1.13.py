#!/usr/bin/python3
# A stand-in for RAUC 1.13's (Debian trixie) InspectBundle on a private bus: its answer exactly as
# the VM's RAUC gave it for a bundle of ours (`busctl call ... InspectBundle`, 2026-11-27), where
# each group is a variant inside the dict's variant ("update" v v a{sv}: RAUC inserts with "v").
# The host's RAUC (1.8) has no InspectBundle, so RAUCInspectTests answers with this to check the
# adapter reads what trixie sends. usage: rauc-inspect-1.13.py BUS_ADDRESS
import sys
from gi.repository import Gio, GLib

XML = '''<node><interface name="de.pengutronix.rauc.Installer">
<method name="InspectBundle"><arg name="source" type="s" direction="in"/><arg name="args" type="a{sv}" direction="in"/><arg name="info" type="a{sv}" direction="out"/></method>
<property name="Compatible" type="s" access="read"/></interface></node>'''
V = GLib.Variant


def wrapped(value):
    return V('v', value)


def answer():
    update = V('a{sv}', {'version': V('s', '0.1.0+vmtest.2'), 'compatible': V('s', 'grandstand-qemu-virt'),
                         'build': V('s', '20261127151008'), 'description': V('s', 'Grandstand 0.1.0+vmtest.2 for qemu-virt')})
    hooks = V('a{sv}', {'filename': V('s', 'hook'), 'hooks': wrapped(V('as', []))})
    images = V('aa{sv}', [{'slot-class': V('s', 'rootfs'), 'filename': V('s', 'rootfs.ext4'),
                           'checksum': V('s', 'fd1ec04d04c5aabb328abcf1c7e851cf241206a36d35d7dc8090e016f3148d0a'),
                           'size': V('t', 916455424), 'hooks': V('as', ['post-install'])}])
    bundle = V('a{sv}', {'format': V('s', 'verity'), 'verity-size': V('t', 1888256),
                         'verity-salt': V('s', '278e15c8b4c2fd391fe06d3f264986424c345c43e885cb10e24de1d759add7e6'),
                         'verity-hash': V('s', 'da75c2c1fda234300f9dae585405138d88543a7c4668b8b609a4daa9b29ea074')})
    return V('(a{sv})', ({'update': wrapped(update), 'hooks': wrapped(hooks), 'images': wrapped(images),
                          'manifest-hash': V('s', '06019aa39fadc647e3c3f2e87eec2bf2702cca6458048e02d48ce16b78256ae6'),
                          'bundle': wrapped(bundle), 'meta': wrapped(V('a{sa{ss}}', {}))},))


def call(connection, sender, path, interface, method, parameters, invocation):
    invocation.return_value(answer())


def prop(connection, sender, path, interface, name):
    return V('s', 'grandstand-qemu-virt')


bus = Gio.DBusConnection.new_for_address_sync(
    sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
bus.register_object('/', Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0], call, prop, None)
Gio.bus_own_name_on_connection(bus, 'de.pengutronix.rauc', Gio.BusNameOwnerFlags.NONE, None, None)
GLib.MainLoop().run()
