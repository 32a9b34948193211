#!/usr/bin/env python3
"""A minimal HTTP CONNECT proxy for the origin transport tests (CurlHTTPTests).

Accepts `CONNECT host:port`, answers 200 and relays bytes both ways; anything else gets 405.
Every request line is appended to LOG. Usage: connect-proxy.py PORTFILE LOG
(binds 127.0.0.1:0 and writes the port to PORTFILE).
"""
import socket
import sys
import threading


def relay(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    finally:
        try:
            b.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def handle(client):
    head = b""
    while b"\r\n\r\n" not in head:
        data = client.recv(4096)
        if not data:
            client.close()
            return
        head += data
    line = head.split(b"\r\n", 1)[0].decode("latin-1")
    with open(sys.argv[2], "a") as log:
        log.write(line + "\n")
    parts = line.split()
    if len(parts) != 3 or parts[0] != "CONNECT":
        client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        client.close()
        return
    host, port = parts[1].rsplit(":", 1)
    try:
        upstream = socket.create_connection((host.strip("[]"), int(port)), timeout=10)
        upstream.settimeout(None)
    except OSError:
        client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        client.close()
        return
    client.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
    threading.Thread(target=relay, args=(upstream, client), daemon=True).start()
    relay(client, upstream)


server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.bind(("127.0.0.1", 0))
server.listen(16)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(server.getsockname()[1]))
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    connection, _ = server.accept()
    threading.Thread(target=handle, args=(connection,), daemon=True).start()
