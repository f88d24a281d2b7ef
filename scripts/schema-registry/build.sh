#!/usr/bin/env bash
# Builds the schema registry's runner jar once (see common.sh) into .schema-registry/build/,
# with a private Maven repository in .schema-registry/m2/. Rebuilds only when an input changed
# (pom.xml, overrides.properties, the shims, this script). Prints nothing on stdout: Maven's
# output goes to .schema-registry/build.log, and its last lines to stderr on failure.
#
# Maven Central does not serve every artifact of Apicurio 3.0.9, so the build:
#  1. installs the 3.0.7 parent POM re-versioned as 3.0.9 (same Quarkus line);
#  2. installs apicurio-registry-config-index-deployment 3.0.6 as 3.0.9;
#  3. installs apicurio-registry-config-definitions 3.0.6 as 3.0.9, with two shim classes
#     compiled in (ConfigPropertyCategory.java and Info.java: 3.0.9's signatures);
#  4. writes the app's configuration: Apicurio's own application.properties followed by
#     overrides.properties, at a higher ordinal than the copy inside the app jar;
#  5. runs Quarkus' build (`mvn package`) over pom.xml, which pins Quarkus 3.15.3 and the
#     nearest served versions of two modules and leaves out the MySQL and MSSQL drivers.
# `-DskipDefault` switches off the Apicurio parent's profile of extra repositories, which are
# unreachable here: only Maven Central is used.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

stamp="$SR_BUILD_DIR/.complete-$(sr_build_stamp)"
if [ -f "$stamp" ] && [ -f "$SR_RUNNER" ]; then
  exit 0
fi
JAVA="$(sr_find_java)" || exit "$SR_EXIT_NO_JAVA"
JDK_BIN="$(dirname "$(readlink -f "$JAVA")")"
if [ ! -x "$JDK_BIN/javac" ] || [ ! -x "$JDK_BIN/jar" ]; then
  sr_log "javac and jar (a JDK, not only a JRE) are needed beside $JAVA to build the schema registry"
  sr_log "(for example: apt-get install openjdk-17-jdk-headless)"
  exit "$SR_EXIT_NO_JAVA"
fi
if ! command -v mvn >/dev/null 2>&1; then
  sr_log "Maven (mvn) is required to build the schema registry from Maven Central."
  sr_log "Install it (for example: apt-get install maven), or set SCHEMA_REGISTRY_URL to use an existing registry."
  exit "$SR_EXIT_NO_MAVEN"
fi
export JAVA_HOME="$(dirname "$JDK_BIN")"

sr_log "building Apicurio Registry 3.0.9 from Maven Central into $SR_BUILD_DIR (first run only; about 2 minutes and 250 MB)"
mkdir -p "$SR_HOME_DIR"
rm -rf "$SR_BUILD_DIR"
work="$SR_BUILD_DIR/work"
mkdir -p "$work/cdef" "$SR_BUILD_DIR/src/main/resources"
: >"$SR_BUILD_LOG"
MVN=(mvn -B -ntp -q -Dstyle.color=never -DskipDefault -Dmaven.repo.local="$SR_MAVEN_REPO")

fail() {
  sr_log "$1; Maven's last lines ($SR_BUILD_LOG):"
  sed -e 's/\x1b\[[0-9;]*[A-Za-z]//g' -e '/^[[:space:]]*$/d' "$SR_BUILD_LOG" | tail -n 15 | sed 's/^/    /' >&2
  sr_log "Is Maven Central reachable from here? Or set SCHEMA_REGISTRY_URL to use an existing registry."
  exit "$SR_EXIT_BUILD_FAILED"
}
# Run in the work folder, not beside pom.xml: that POM cannot be read before step 1.
get() {
  (cd "$work" && "${MVN[@]}" org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy \
    -Dartifact="$1" -DoutputDirectory="$work" -Dmdep.overWriteReleases=true) \
    >>"$SR_BUILD_LOG" 2>&1 </dev/null || fail "Maven could not fetch $1"
}
install_file() {
  (cd "$work" && "${MVN[@]}" org.apache.maven.plugins:maven-install-plugin:3.1.1:install-file \
    -Dfile="$1" -DpomFile="$2" ${3:+-Dpackaging=$3}) \
    >>"$SR_BUILD_LOG" 2>&1 </dev/null || fail "Maven could not install $1 into $SR_MAVEN_REPO"
}

# 1. the parent POM
get io.apicurio:apicurio-registry:3.0.7:pom
sed 's#<version>3.0.7</version>#<version>3.0.9</version>#' "$work/apicurio-registry-3.0.7.pom" >"$work/parent.pom"
install_file "$work/parent.pom" "$work/parent.pom" pom
# 2. config-index-deployment
get io.apicurio:apicurio-registry-config-index-deployment:3.0.6:jar
get io.apicurio:apicurio-registry-config-index-deployment:3.0.6:pom
sed '0,/<version>3.0.6<\/version>/s##<version>3.0.9</version>#' \
  "$work/apicurio-registry-config-index-deployment-3.0.6.pom" >"$work/cid.pom"
install_file "$work/apicurio-registry-config-index-deployment-3.0.6.jar" "$work/cid.pom"
# 3. config-definitions with the shims (its Jandex index dropped: Quarkus indexes it, see overrides)
get io.apicurio:apicurio-registry-config-definitions:3.0.6:jar
get io.apicurio:apicurio-registry-config-definitions:3.0.6:pom
get jakarta.enterprise:jakarta.enterprise.cdi-api:4.1.0:jar
(cd "$work/cdef" && "$JDK_BIN/jar" xf ../apicurio-registry-config-definitions-3.0.6.jar &&
  rm -f io/apicurio/common/apps/config/Info.class META-INF/jandex.idx)
"$JDK_BIN/javac" --release 17 -cp "$work/jakarta.enterprise.cdi-api-4.1.0.jar" -d "$work/cdef" \
  "$SR_SCRIPTS_DIR/ConfigPropertyCategory.java" "$SR_SCRIPTS_DIR/Info.java" >>"$SR_BUILD_LOG" 2>&1 ||
  fail "the shim classes did not compile"
(cd "$work/cdef" && "$JDK_BIN/jar" cf ../cdef.jar .)
sed '0,/<version>3.0.6<\/version>/s##<version>3.0.9</version>#' \
  "$work/apicurio-registry-config-definitions-3.0.6.pom" >"$work/cdef.pom"
install_file "$work/cdef.jar" "$work/cdef.pom"
# 4. the app's configuration
get io.apicurio:apicurio-registry-app:3.0.9:jar
(cd "$work" && "$JDK_BIN/jar" xf apicurio-registry-app-3.0.9.jar application.properties)
{
  echo 'config_ordinal=260'
  cat "$work/application.properties"
  cat "$SR_SCRIPTS_DIR/overrides.properties"
} >"$SR_BUILD_DIR/src/main/resources/application.properties"
# 5. Quarkus' build
cp "$SR_SCRIPTS_DIR/pom.xml" "$SR_BUILD_DIR/pom.xml"
(cd "$SR_BUILD_DIR" && "${MVN[@]}" package -DskipTests) >>"$SR_BUILD_LOG" 2>&1 </dev/null ||
  fail "the Quarkus build of the registry failed"
[ -f "$SR_RUNNER" ] || fail "the build finished without $SR_RUNNER"
rm -rf "$work"
# 6. a class-data-sharing archive (AppCDS) of one start-up, written by the JVM when it exits:
# later starts load those classes from it and answer in about half the time. Skipped when the
# port is taken (start.sh then runs without the archive).
if sr_port_open "$SR_PORT"; then
  sr_log "port $SR_PORT is taken: no class-data-sharing archive made (starts will be slower)"
else
  sr_log "recording a class-data-sharing archive of one start-up"
  "$JAVA" "${SR_JAVA_OPTS[@]}" -XX:ArchiveClassesAtExit="$SR_CDS_ARCHIVE" \
    -Dquarkus.http.port="$SR_PORT" -jar "$SR_RUNNER" >>"$SR_BUILD_LOG" 2>&1 </dev/null &
  trainer=$!
  for _ in $(seq 1 "$SR_START_TIMEOUT"); do
    sr_answers "$SR_PORT" && break
    kill -0 "$trainer" 2>/dev/null || break
    sleep 1
  done
  kill -TERM "$trainer" 2>/dev/null || true
  wait "$trainer" 2>/dev/null || true
  [ -s "$SR_CDS_ARCHIVE" ] || { rm -f "$SR_CDS_ARCHIVE"; sr_log "no class-data-sharing archive was written (see $SR_BUILD_LOG)"; }
fi
touch "$stamp"
sr_log "built $SR_RUNNER"
