#!/usr/bin/env python3
"""A test origin for the cache's download-to-go prefetch (docs/cache.md, ContentCache tests).

Serves ROOT/meta/ID.json at /meta/ID and ROOT/media/PATH at /media/PATH (with Range), and
misbehaves on request: /meta/boom → 500; /media/err500/… → 500; /media/slow/… → headers, then
silence; /media/trunc/… → always half the body then close; /media/cut/… → the first request
gets half the body, later (Range) requests the rest; /media/flaky/… → the first request 503;
/media/stall/… → the first request gets half the body, then silence (a download to interrupt),
later requests the rest; /media/token/… → 403 unless the request carries a per-item token
(an X-Item-Token header and an `item=` query parameter); /media/typed/… → 403 unless the request
carries the token of its file type: `.m3u8` a `pl` cookie, `.ts` a `seg=` query parameter, `.key`
an X-Key-Token header, anything else an `all` cookie; /meta/typed-… → 403 without an
X-Meta-Token header. Modes combine in this order (e.g. /media/stall/token/clip.bin).
Every request is appended to ROOT/requests.log as
`PATH RANGE X-TOKEN QUERY X-ITEM-TOKEN COOKIE X-KEY-TOKEN X-META-TOKEN` (spaces in the cookie removed).
Usage: origin.py ROOT PORTFILE [CERT KEY]  (binds 127.0.0.1:0 and writes the port to PORTFILE; with a
certificate and key it speaks HTTPS, so a cut connection is a cut TLS stream).
"""
import http.server
import os
import sys
import threading
import time

ROOT = sys.argv[1]
seen = set()
lock = threading.Lock()


class Origin(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        with lock:
            with open(os.path.join(ROOT, "requests.log"), "a") as log:
                log.write("%s %s %s %s %s %s %s %s\n" % (path, self.headers.get("Range", "-"), self.headers.get("X-Token", "-"),
                                                      self.path.split("?", 1)[1] if "?" in self.path else "-",
                                                      self.headers.get("X-Item-Token", "-"),
                                                      self.headers.get("Cookie", "-").replace(" ", ""),
                                                      self.headers.get("X-Key-Token", "-"), self.headers.get("X-Meta-Token", "-")))
            first = path not in seen
            seen.add(path)
        if path == "/meta/boom" or path.startswith("/media/err500/"):
            return self.reply(500, b"origin broke\n")
        if path.startswith("/media/flaky/") and first:
            return self.reply(503, b"try again\n")
        if path.startswith("/meta/"):
            name = os.path.join(ROOT, "meta", os.path.basename(path) + ".json")
        elif path.startswith("/media/"):
            rest = path[len("/media/"):]
            for mode in ("slow/", "trunc/", "cut/", "flaky/", "stall/", "token/", "typed/"):
                if rest.startswith(mode):
                    rest = rest[len(mode):]
            name = os.path.join(ROOT, "media", rest)
        else:
            return self.reply(404, b"not found\n")
        query = self.path.split("?", 1)[1] if "?" in self.path else ""
        if "/token/" in path and (not self.headers.get("X-Item-Token") or "item=" not in query):
            return self.reply(403, b"per-item token missing\n")
        if path.startswith("/meta/typed-") and not self.headers.get("X-Meta-Token"):
            return self.reply(403, b"metadata token missing\n")
        if "/typed/" in path and not typed_token_present(path, self.headers, query):
            return self.reply(403, b"token for this file type missing\n")
        if ".." in path or not os.path.isfile(name):
            return self.reply(404, b"not found\n")
        with open(name, "rb") as f:
            body = f.read()
        start = 0
        status = 200
        headers = []
        wanted = self.headers.get("Range")
        if wanted and wanted.startswith("bytes=") and wanted.endswith("-"):
            start = int(wanted[6:-1])
            if start >= len(body):
                return self.reply(416, b"", [("Content-Range", "bytes */%d" % len(body))])
            status = 206
            headers.append(("Content-Range", "bytes %d-%d/%d" % (start, len(body) - 1, len(body))))
        part = body[start:]
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(part)))
        self.send_header("Connection", "close")
        self.end_headers()
        if path.startswith("/media/slow/"):
            self.wfile.flush()
            time.sleep(30)
            return
        if path.startswith("/media/stall/") and first:
            self.wfile.write(part[: len(part) // 2])
            self.wfile.flush()
            time.sleep(30)
            return
        if path.startswith("/media/trunc/") or (path.startswith("/media/cut/") and first):
            self.wfile.write(part[: len(part) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(part)

    def reply(self, status, body, headers=()):
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)


def typed_token_present(path, headers, query):
    """Whether a /media/typed/ request carries its file type's token (see the module's doc)."""
    cookies = [c.strip().split("=", 1)[0] for c in headers.get("Cookie", "").split(";") if "=" in c]
    params = [p.split("=", 1)[0] for p in query.split("&") if p]
    if path.endswith(".m3u8"):
        return "pl" in cookies
    if path.endswith(".ts"):
        return "seg" in params
    if path.endswith(".key"):
        return bool(headers.get("X-Key-Token"))
    return "all" in cookies


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Origin)
server.daemon_threads = True
if len(sys.argv) > 4:
    import ssl
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[3], sys.argv[4])
    server.socket = context.wrap_socket(server.socket, server_side=True)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
server.serve_forever()
