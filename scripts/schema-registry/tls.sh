#!/usr/bin/env bash
# Makes the certificates of the registry's HTTPS port under .schema-registry/tls/ (see
# common.sh), unless they are there and valid for another day: a private CA, a server
# certificate for localhost and 127.0.0.1, and a client certificate (PEM, and PKCS12 with the
# password in client.p12.password) for clients' key store settings (the port does not ask for
# one: see start.sh). EC P-256 keys: well under a
# second with openssl. Test material only: the keys are not protected.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

dir="$SR_TLS_DIR"
if [ -s "$dir/client.p12" ] && openssl x509 -checkend 86400 -noout -in "$dir/server.pem" >/dev/null 2>&1; then
  exit 0
fi
command -v openssl >/dev/null 2>&1 || { sr_log "openssl is needed for the HTTPS port"; exit 1; }
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
cd "$dir.tmp"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
key ca.key
openssl req -x509 -new -key ca.key -out ca.pem -days 30 -subj '/CN=serverless-connect test CA' \
  -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign'
# signed NAME CN EXTENSIONS: NAME.key and NAME.pem, signed by the CA.
signed() {
  key "$1.key"
  openssl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr"
  printf '%s\n' "$3" >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 \
    -extfile "$1.ext" -out "$1.pem" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}
signed server localhost $'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth'
signed client serverless-connect-test-client 'extendedKeyUsage=clientAuth'
printf 'client-p12-secret' >client.p12.password
openssl pkcs12 -export -in client.pem -inkey client.key -certfile ca.pem -name client \
  -passout file:client.p12.password -out client.p12
rm -f ca.srl
cd - >/dev/null
rm -rf "$dir"
mv "$dir.tmp" "$dir"
sr_log "made the HTTPS port's certificates in $dir"
