# Throwaway TLS material for start.sh's SASL_SSL listener (KAFKA_SASL_SSL_PORT). Sourced after
# common.sh, not run. Local test material only: a fixed password, kept under KAFKA_HOME_DIR
# (.kafka/ by default, git-ignored), never committed.
#   $KAFKA_TLS_DIR/ca.pem      the CA certificate clients trust (Node: NODE_EXTRA_CA_CERTS=<path>)
#   $KAFKA_TLS_DIR/broker.p12  PKCS12 keystore: the broker's key and its certificate for
#                              127.0.0.1 and localhost, signed by the CA (chain included)
#   $KAFKA_TLS_DIR/ca.p12      the CA's key, which signs nothing else
KAFKA_TLS_DIR="$KAFKA_HOME_DIR/tls"
KAFKA_TLS_PASSWORD="serverless-connect-local-tls"

# Generates the CA and the broker's keystore with the JDK's keytool (beside the java given, else on
# PATH), unless both already exist. Takes a few seconds.
kafka_tls_material() {
  local java="$1" keytool tmp log
  if [ -s "$KAFKA_TLS_DIR/broker.p12" ] && [ -s "$KAFKA_TLS_DIR/ca.pem" ]; then
    kafka_log "TLS: reusing the CA in $KAFKA_TLS_DIR (trust $KAFKA_TLS_DIR/ca.pem)"
    return 0
  fi
  keytool="$(dirname "$(readlink -f "$java")")/keytool"
  [ -x "$keytool" ] || keytool="$(command -v keytool || true)"
  if [ -z "$keytool" ]; then
    kafka_log "TLS: keytool is neither beside $java nor on PATH; KAFKA_SASL_SSL_PORT needs a JDK's keytool"
    return 1
  fi
  tmp="$KAFKA_TLS_DIR.tmp"
  log="$KAFKA_LOG_DIR/keytool.log"
  rm -rf "$tmp" "$KAFKA_TLS_DIR"
  mkdir -p "$tmp"
  chmod 700 "$tmp"
  # keytool runs one JVM per step: the client compiler alone starts them several times faster.
  local kt=("$keytool" -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC)
  local pass=(-storepass "$KAFKA_TLS_PASSWORD" -keypass "$KAFKA_TLS_PASSWORD")
  local key=(-keyalg EC -groupname secp256r1 -validity 365 -storetype PKCS12)
  {
    "${kt[@]}" -genkeypair -alias ca -dname CN=serverless-connect-local-ca "${key[@]}" \
      -ext bc:c=ca:true -ext ku:c=keyCertSign,cRLSign -keystore "$tmp/ca.p12" "${pass[@]}" &
    local ca_pid=$!
    "${kt[@]}" -genkeypair -alias broker -dname CN=localhost "${key[@]}" \
      -keystore "$tmp/broker.p12" "${pass[@]}" &
    local broker_pid=$!
    wait "$ca_pid" && wait "$broker_pid" &&
      "${kt[@]}" -exportcert -alias ca -rfc -keystore "$tmp/ca.p12" -storepass "$KAFKA_TLS_PASSWORD" \
        -file "$tmp/ca.pem" &&
      "${kt[@]}" -certreq -alias broker -keystore "$tmp/broker.p12" -storepass "$KAFKA_TLS_PASSWORD" |
      "${kt[@]}" -gencert -alias ca -keystore "$tmp/ca.p12" -storepass "$KAFKA_TLS_PASSWORD" -rfc \
        -validity 365 -ext san=ip:127.0.0.1,dns:localhost -ext eku=serverAuth \
        -ext ku:c=digitalSignature,keyAgreement -outfile "$tmp/broker.pem" &&
      cat "$tmp/broker.pem" "$tmp/ca.pem" >"$tmp/chain.pem" &&
      "${kt[@]}" -importcert -noprompt -alias broker -file "$tmp/chain.pem" \
        -keystore "$tmp/broker.p12" -storepass "$KAFKA_TLS_PASSWORD"
  } >"$log" 2>&1 || {
    kafka_log "TLS: generating the CA and the broker certificate failed:"
    cat "$log" >&2
    rm -rf "$tmp"
    return 1
  }
  rm -f "$tmp/broker.pem" "$tmp/chain.pem"
  mv "$tmp" "$KAFKA_TLS_DIR"
  kafka_log "TLS: generated a throwaway CA; trust $KAFKA_TLS_DIR/ca.pem"
}
