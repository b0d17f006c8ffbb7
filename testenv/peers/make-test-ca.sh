#!/usr/bin/env bash
# Make a private CA and a server certificate it signs for 127.0.0.1, ::1 and localhost, with
# openssl, for tests that serve HTTPS on loopback (the gateway stand-in, the gateway mode's TLS,
# the Playwright journeys).
#
#   testenv/peers/make-test-ca.sh DIR     # -> DIR/ca.pem DIR/ca-key.pem DIR/server.pem DIR/server-key.pem
#
# Trust ca.pem where the test says so (MCPSCOPE_EXTRA_CA_CERTS, MCP_PROXY_CA_FILE, a browser's
# flags); serve server.pem + server-key.pem. EC P-256 keys (fast to make), valid from now for
# 30 days; keys are 0600, certificates 0644. Each run makes a new CA: nothing outside DIR trusts it.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
command -v openssl >/dev/null || { echo "make-test-ca: openssl not found (apt-get install openssl)" >&2; exit 2; }
dir=$1
mkdir -p "$dir"
cd "$dir"
umask 077
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A CA: basicConstraints critical CA:TRUE, keyCertSign (rustls/webpki and browsers check both).
openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/ca.key" 2>/dev/null
openssl pkcs8 -topk8 -nocrypt -in "$tmp/ca.key" -out ca-key.pem
openssl req -x509 -new -key ca-key.pem -sha256 -days 30 -subj "/CN=mcpscope test CA" \
  -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -addext "subjectKeyIdentifier=hash" \
  -out ca.pem 2>/dev/null

# The server: SANs for loopback (webpki ignores the CN), serverAuth, not a CA.
openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/server.key" 2>/dev/null
openssl pkcs8 -topk8 -nocrypt -in "$tmp/server.key" -out server-key.pem
openssl req -new -key server-key.pem -subj "/CN=127.0.0.1" -out "$tmp/server.csr" 2>/dev/null
cat >"$tmp/ext.cnf" <<'CNF'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost
authorityKeyIdentifier=keyid
subjectKeyIdentifier=hash
CNF
openssl x509 -req -in "$tmp/server.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial -CAserial "$tmp/ca.srl" \
  -days 30 -sha256 -extfile "$tmp/ext.cnf" -out server.pem 2>/dev/null
chmod 644 ca.pem server.pem
openssl verify -CAfile ca.pem server.pem >/dev/null
echo "make-test-ca: $dir/ca.pem $dir/server.pem $dir/server-key.pem"
