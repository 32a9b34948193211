#!/usr/bin/env bash
# The update signing keys (docs/updates.md). Prints the directory holding them:
#   ca.cert.pem           the keyring images trust (/etc/rauc/keyring.pem)
#   signing.cert.pem/.key.pem   what `make bundle` signs with (issued by the CA)
# By default a development CA and signing key, made once per cache under
# $GRANDSTAND_CACHE/update-keys/dev (never in the repository). An operator points
# GRANDSTAND_UPDATE_KEYS at a directory holding the venue's own three files instead.
# usage: keys.sh [dev|other NAME]   other NAME: a second, unrelated CA+key (the VM's wrongly-signed
#                                   bundle check), under update-keys/NAME
set -euo pipefail
name=${2:-dev}
if [ "${1:-dev}" = dev ] && [ -n "${GRANDSTAND_UPDATE_KEYS:-}" ]; then
    for f in ca.cert.pem signing.cert.pem signing.key.pem; do
        [ -f "$GRANDSTAND_UPDATE_KEYS/$f" ] || { echo "keys.sh: $GRANDSTAND_UPDATE_KEYS/$f missing" >&2; exit 1; }
    done
    echo "$GRANDSTAND_UPDATE_KEYS"; exit 0
fi
dir=${GRANDSTAND_CACHE:-$(cd "$(dirname "$0")/../.." && pwd)/.cache}/update-keys/$name
if [ ! -f "$dir/READY" ]; then
    rm -rf "$dir"; mkdir -p "$dir"; chmod 700 "$dir"
    cd "$dir"
    # A CA (10 years) and a signing certificate it issues: RAUC checks the chain to the keyring.
    openssl req -x509 -newkey rsa:3072 -nodes -days 3650 -keyout ca.key.pem -out ca.cert.pem \
        -subj "/O=Grandstand development/CN=Grandstand $name update CA" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
    openssl req -newkey rsa:3072 -nodes -keyout signing.key.pem -out signing.csr \
        -subj "/O=Grandstand development/CN=Grandstand $name bundle signing" 2>/dev/null
    # No extended key usage: RAUC's default purpose check (smimesign) accepts a certificate without one.
    printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n' > ext.cnf
    openssl x509 -req -in signing.csr -CA ca.cert.pem -CAkey ca.key.pem -CAcreateserial -days 3650 \
        -extfile ext.cnf -out signing.cert.pem 2>/dev/null
    rm -f signing.csr ext.cnf ca.cert.srl
    touch READY
fi
echo "$dir"
