#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make-starttls-captures.sh: regenerate pcaps/starttls-*.pcap, TLS after a
# plaintext STARTTLS prefix (issue 27), made by real servers and clients from
# Debian 12 packages, each on its protocol's standard port so that
# Wireshark's own dissectors recognise the upgrade and hand the rest of the
# stream to the TLS dissector.
#
# Like make-captures.sh the script runs itself in a network namespace of its
# own (unshare -n) whose loopback is the only interface: client 127.0.0.2,
# server 127.0.0.3 (the clients get their source address from the route).
# The servers are started by hand (no systemd), each with a configuration and
# state of its own in a temporary directory (nothing under /etc, /var or /run
# is changed), on 127.0.0.3 only, and stopped again by the script (by pid, or
# by the daemon's own stop command).
#
# Usage (as root: a network namespace, dumpcap on lo, daemons that drop
# privileges):
#   pcaps/make-starttls-captures.sh                        # every scenario
#   pcaps/make-starttls-captures.sh starttls-smtp-swaks    # only these
#   OUT=/some/dir pcaps/make-starttls-captures.sh          # write elsewhere
#   KEEP_TMP=1 pcaps/make-starttls-captures.sh             # keep configs and logs
#
# Debian 12 packages (assumed installed): postfix, swaks, dovecot-imapd,
# dovecot-pop3d, vsftpd, prosody, slapd, ldap-utils, postgresql (15),
# postgresql-client, mariadb-server, mariadb-client, curl, openssl,
# tshark (wireshark-common: dumpcap), iproute2, util-linux, coreutils.
# The versions the committed captures were made with are in pcaps/README-starttls.md.
#
# Each run gives new randoms, keys and ports on the client side; the
# committed captures are the reference that tests/captures/expect/ describes:
# regenerate only on purpose, then re-read every manifest value off the new
# bytes.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${OUT:-$here}

all_scenarios=(
    starttls-smtp-swaks
    starttls-smtp-openssl-tls12
    starttls-smtp-refused
    starttls-smtp-tls10-refused
    starttls-smtp-not-offered
    starttls-smtp-port2525
    starttls-smtp-not-offered-port2525
    starttls-imap-openssl
    starttls-imap-curl
    starttls-imap-tls10-refused
    starttls-pop3-openssl
    starttls-pop3-curl
    starttls-postgres-psql
    starttls-postgres-refused
    starttls-ftp-curl
    starttls-ftp-lftp
    starttls-xmpp-openssl
    starttls-ldap-ldapsearch
    starttls-mysql-mariadb
)

me=make-starttls-captures
# shellcheck source=SCRIPTDIR/capture-common.sh
. "$here/capture-common.sh"

select_scenarios "${all_scenarios[@]}" -- "$@"

[ "$(id -u)" -eq 0 ] || die "run as root (a network namespace, dumpcap on lo, daemons)"
for cmd in dumpcap tshark openssl curl ss timeout unshare ip; do
    command -v "$cmd" >/dev/null || die "missing command $cmd (see the package list at the top)"
done

client_addr=127.0.0.2
server_addr=127.0.0.3

# Run again in a network namespace of its own, then set up its loopback.
if [ "${TLSNEG_CAPTURE_NETNS:-}" != "$$" ]; then
    TLSNEG_CAPTURE_NETNS=$$ exec unshare -n -- "$BASH" "${BASH_SOURCE[0]}" "$@"
fi
ip link set lo up
ip route replace local 127.0.0.0/8 dev lo table local proto kernel scope host src "$client_addr"
# Postfix and slapd want their listening address on an interface; the local
# route keeps 127.0.0.2 as the source towards it.
ip addr add "$server_addr/32" dev lo
ip route replace local "$server_addr" dev lo table local proto kernel scope host src "$client_addr"
ip -o route get "$server_addr" | grep -q " src $client_addr " ||
    die "the route to $server_addr has no src $client_addr"

# World-readable (mode 755): the daemons drop privileges and read from here.
tmp=$(mktemp -d /tmp/starttls-caps.XXXXXX)
chmod 755 "$tmp"
pids=()     # background processes started here (dumpcap, daemons)
stoppers=() # commands that stop a daemon that forks away from its pid
cap_pid=
cleanup() {
    local pid cmd
    for cmd in "${stoppers[@]}"; do
        eval "$cmd" >/dev/null 2>&1 || true
    done
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    if [ -n "${KEEP_TMP:-}" ]; then
        log "kept $tmp"
    else
        rm -rf "$tmp"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A throwaway self-signed P-256 certificate (small: keeps the captures small).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 -subj /CN=mail.example.test \
    -addext subjectAltName=DNS:mail.example.test,DNS:localhost 2>/dev/null
chmod 644 "$tmp/key.pem" # throwaway, read by daemons that run as their own users
cert=$tmp/cert.pem
key=$tmp/key.pem

# ---------------------------------------------------------------- helpers

# cap_start NAME FILTER: capture lo with a capture filter, in pcap format;
# returns once dumpcap is capturing. A 60 s autostop bounds it.
cap_start() {
    local name=$1 filter=$2
    : >"$tmp/$name.dumpcap.log"
    dumpcap -q -i lo -f "$filter" -P -a duration:60 -w "$tmp/$name.pcap" \
        2>"$tmp/$name.dumpcap.log" &
    cap_pid=$!
    pids+=("$cap_pid")
    await 100 "$cap_pid" "$tmp/$name.dumpcap.log" "$name: dumpcap did not start" \
        capturing "$tmp/$name.dumpcap.log"
    sleep 0.3 # dumpcap says so a moment before it sees the first packet
}

# cap_stop NAME: let the last packets arrive, stop dumpcap with SIGINT,
# install the file.
cap_stop() {
    local name=$1
    sleep 0.7
    kill -INT "$cap_pid"
    wait "$cap_pid" || true
    cap_pid=
    [ -s "$tmp/$name.pcap" ] || die "$name: empty capture"
    install -m 644 "$tmp/$name.pcap" "$out/$name.pcap"
}

# wait_listen NAME PORT: wait until something listens on PORT (TCP).
wait_listen() {
    await 200 "" "" "$1: nothing listens on port $2 (logs in $tmp)" listening "$2"
}

# listening PORT: something listens on PORT (TCP).
listening() {
    ss -Hltn "sport = :$1" | grep -q .
}

# client NAME CMD...: run a client, bounded, stdin closed; fail with its log.
# client_fails NAME CMD...: the same for a client that must fail.
client() {
    local name=$1 rc=0
    shift
    timeout 15 "$@" </dev/null >>"$tmp/$name.client.log" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ]; then
        cat "$tmp/$name.client.log" >&2
        die "$name: client exited with $rc"
    fi
}
client_fails() {
    local name=$1 rc=0
    shift
    timeout 15 "$@" </dev/null >>"$tmp/$name.client.log" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
        cat "$tmp/$name.client.log" >&2
        die "$name: client exited with $rc, expected a failure"
    fi
}

# s_client_cmd NAME SECONDS LINE OPTION...: openssl s_client, which sends
# LINE (CRLF added) SECONDS after it started, then waits for the server to
# close (a clean logout instead of a reset).
s_client_cmd() {
    local name=$1 delay=$2 line=$3 rc=0
    shift 3
    { sleep "$delay"; printf '%s\r\n' "$line"; sleep 2; } |
        timeout 15 openssl s_client -connect "$server_addr:$port" "$@" \
            >>"$tmp/$name.client.log" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ]; then
        cat "$tmp/$name.client.log" >&2
        die "$name: openssl s_client exited with $rc"
    fi
}

# ---------------------------------------------------------------- postfix

# postfix_start TLS [KEY [PROTOCOLS [PORT]]]: a private postfix instance
# (config, queue and data directories under $tmp) listening on 127.0.0.3,
# port PORT (default 25); TLS is "may" (STARTTLS offered) or "none" (no
# STARTTLS: the command is refused); PROTOCOLS is smtpd_tls_protocols
# (postfix's default: >=TLSv1).
postfix_start() {
    local level=$1 key=${2:-$key} protocols=${3:->=TLSv1} port=${4:-25} d=$tmp/postfix
    mkdir -p "$d"
    cp /etc/postfix/master.cf "$d/master.cf"
    : >"$d/main.cf"
    postconf -c "$d" -e \
        "queue_directory = $tmp/postfix-queue" "data_directory = $tmp/postfix-data" \
        "maillog_file = $tmp/postfix.log" "maillog_file_prefixes = $tmp" "myhostname = mail.example.test" \
        "mydomain = example.test" "mydestination = mail.example.test" \
        "inet_interfaces = $server_addr" "inet_protocols = ipv4" \
        "mynetworks = 127.0.0.0/8" "compatibility_level = 3.6" \
        "smtpd_tls_security_level = $level" "smtpd_tls_cert_file = $cert" \
        "smtpd_tls_key_file = $key" "smtpd_tls_protocols = $protocols" "smtpd_banner = \$myhostname ESMTP" \
        "biff = no" "alias_maps =" "alias_database =" "relayhost =" \
        "local_recipient_maps =" "smtp_tls_security_level = none"
    # No chroot (the daemons read the certificate from $tmp); postlogd writes
    # maillog_file.
    postconf -c "$d" -F '*/*/chroot = n'
    if [ "$port" != 25 ]; then
        postconf -c "$d" -MX smtp/inet
        postconf -c "$d" -M "$port/inet=$port inet n - n - - smtpd"
    fi
    mkdir -p "$tmp/postfix-queue" "$tmp/postfix-data"
    chown postfix "$tmp/postfix-data"
    postfix -c "$d" set-permissions >/dev/null 2>&1 || true
    postfix -c "$d" start >"$tmp/postfix.start.log" 2>&1 ||
        { cat "$tmp/postfix.start.log" >&2; die "postfix did not start"; }
    stoppers+=("postfix -c '$d' stop")
    wait_listen postfix "$port"
}
postfix_stop() {
    postfix -c "$tmp/postfix" stop >/dev/null 2>&1 || true
    unset 'stoppers[-1]'
    rm -rf "$tmp/postfix" "$tmp/postfix-queue" "$tmp/postfix-data"
    sleep 1
}

scenario_starttls-smtp-swaks() {
    local n=starttls-smtp-swaks
    postfix_start may
    cap_start $n "tcp port 25"
    client $n swaks --server "$server_addr" --port 25 --tls --ehlo client.example.test \
        --from alice@example.test --to bob@mail.example.test --quit-after RCPT
    cap_stop $n
    postfix_stop
    expect_count $n 'smtp.command_line contains "STARTTLS"' 1
    expect_count $n 'smtp.response.code == 220' 2
    expect_count $n 'tls.handshake.type == 1' 1
    expect_count $n 'tls.handshake.type == 2' 1
}

scenario_starttls-smtp-openssl-tls12() {
    local n=starttls-smtp-openssl-tls12 port=25
    postfix_start may
    cap_start $n "tcp port 25"
    s_client_cmd $n 1 QUIT -nocommands -starttls smtp -name client.example.test -tls1_2 \
        -servername mail.example.test
    cap_stop $n
    postfix_stop
    expect_count $n 'smtp.command_line contains "STARTTLS"' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.version == 0x0303' 1
}

# Postfix with STARTTLS offered but its key file missing (a broken
# deployment): EHLO offers STARTTLS, the command gets 454 4.7.0 "TLS not
# available due to local problem"; swaks --tls gives up and quits, in
# plaintext.
scenario_starttls-smtp-refused() {
    local n=starttls-smtp-refused
    postfix_start may "$tmp/missing-key.pem"
    cap_start $n "tcp port 25"
    client_fails $n swaks --server "$server_addr" --port 25 --tls --ehlo client.example.test \
        --from alice@example.test --to bob@mail.example.test --quit-after RCPT
    cap_stop $n
    postfix_stop
    expect_count $n 'smtp.command_line contains "STARTTLS"' 1
    expect_count $n 'smtp.response.code == 454' 1
    expect_count $n 'tls' 0
}

# openssl s_client forced to TLS 1.0 (security level 0, without which
# OpenSSL 3.0 sends no TLS 1.0 hello) against postfix with
# smtpd_tls_protocols = >=TLSv1.2 (postfix's default, >=TLSv1, accepts
# TLS 1.0 even with OpenSSL 3.0): a fatal alert right after STARTTLS.
scenario_starttls-smtp-tls10-refused() {
    local n=starttls-smtp-tls10-refused port=25 rc=0
    postfix_start may "$key" '>=TLSv1.2'
    cap_start $n "tcp port 25"
    { sleep 1; printf 'QUIT\r\n'; } |
        timeout 15 openssl s_client -connect "$server_addr:$port" -starttls smtp \
            -name client.example.test -servername mail.example.test -tls1 \
            -cipher DEFAULT@SECLEVEL=0 >>"$tmp/$n.client.log" 2>&1 || rc=$?
    [ "$rc" -eq 1 ] || {
        cat "$tmp/$n.client.log" >&2
        die "$n: s_client exited with $rc, expected 1"
    }
    cap_stop $n
    postfix_stop
    expect_count $n 'smtp.command_line contains "STARTTLS"' 1
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.version == 0x0301' 1
    expect_count $n 'tls.handshake.type == 2' 0
    expect_count $n 'tls.alert_message.desc' 1
}

# Postfix with TLS off does not offer STARTTLS; openssl s_client -starttls
# smtp says "Didn't find STARTTLS in server response, trying anyway...",
# sends STARTTLS, gets 502, and sends its ClientHello anyway, into what is
# still a plaintext SMTP session (postfix answers it as a bad command).
scenario_starttls-smtp-not-offered() {
    local n=starttls-smtp-not-offered port=25 rc=0
    postfix_start none
    cap_start $n "tcp port 25"
    timeout 15 openssl s_client -connect "$server_addr:$port" -starttls smtp \
        -name client.example.test -servername mail.example.test \
        </dev/null >>"$tmp/$n.client.log" 2>&1 || rc=$?
    [ "$rc" -eq 1 ] || {
        cat "$tmp/$n.client.log" >&2
        die "$n: s_client exited with $rc, expected 1"
    }
    cap_stop $n
    postfix_stop
    expect_count $n 'smtp.command_line contains "STARTTLS"' 1
    expect_count $n 'smtp.response.code == 502' 1
    expect_count $n 'tls' 0
}

# The same as starttls-smtp-swaks on port 2525, where Wireshark 4.0 calls
# no SMTP dissector: what it finds there is its TLS heuristic's doing.
scenario_starttls-smtp-port2525() {
    local n=starttls-smtp-port2525
    postfix_start may "$key" '>=TLSv1' 2525
    cap_start $n "tcp port 2525"
    client $n swaks --server "$server_addr" --port 2525 --tls --ehlo client.example.test \
        --from alice@example.test --to bob@mail.example.test --quit-after RCPT
    cap_stop $n
    postfix_stop
    expect_count $n 'smtp' 0
    expect_count $n 'tls.handshake.type == 1' 1
    expect_count $n 'tls.handshake.type == 2' 1
}

# The same as starttls-smtp-not-offered on port 2525: no SMTP dissector to
# see the 502, and the ClientHello sent after it is found by the TLS
# heuristic.
scenario_starttls-smtp-not-offered-port2525() {
    local n=starttls-smtp-not-offered-port2525 port=2525 rc=0
    postfix_start none "$key" '>=TLSv1' 2525
    cap_start $n "tcp port 2525"
    timeout 15 openssl s_client -connect "$server_addr:$port" -starttls smtp \
        -name client.example.test -servername mail.example.test \
        </dev/null >>"$tmp/$n.client.log" 2>&1 || rc=$?
    [ "$rc" -eq 1 ] || {
        cat "$tmp/$n.client.log" >&2
        die "$n: s_client exited with $rc, expected 1"
    }
    cap_stop $n
    postfix_stop
    expect_count $n 'smtp' 0
    expect_count $n 'frame contains "502 5.5.1"' 1
    expect_count $n 'tls.handshake.type == 1' 1
}

# ---------------------------------------------------------------- dovecot

# dovecot_start: a private dovecot (IMAP 143, POP3 110 on 127.0.0.3; state,
# sockets and log under $tmp) with STARTTLS/STLS, one user "alice",
# password "secret", and an empty Maildir.
dovecot_start() {
    local d=$tmp/dovecot
    mkdir -p "$d/run" "$d/mail/alice/Maildir/cur" "$d/mail/alice/Maildir/new" \
        "$d/mail/alice/Maildir/tmp"
    chown -R nobody:nogroup "$d/mail"
    printf 'alice:{PLAIN}secret:65534:65534::%s/mail/alice\n' "$d" >"$d/passwd"
    cat >"$d/dovecot.conf" <<EOF
protocols = imap pop3
listen = $server_addr
base_dir = $d/run
state_dir = $d/state
log_path = $tmp/dovecot.log
ssl = yes
ssl_cert = <$cert
ssl_key = <$key
auth_mechanisms = plain
passdb {
  driver = passwd-file
  args = scheme=PLAIN $d/passwd
}
userdb {
  driver = passwd-file
  args = $d/passwd
}
mail_location = maildir:~/Maildir
first_valid_uid = 65534
EOF
    dovecot -c "$d/dovecot.conf" >"$tmp/dovecot.start.log" 2>&1 ||
        { cat "$tmp/dovecot.start.log" "$tmp/dovecot.log" >&2; die "dovecot did not start"; }
    stoppers+=("doveadm -c '$d/dovecot.conf' stop")
    wait_listen dovecot 143
    wait_listen dovecot 110
}
dovecot_stop() {
    doveadm -c "$tmp/dovecot/dovecot.conf" stop >/dev/null 2>&1 || true
    unset 'stoppers[-1]'
    sleep 1
}

scenario_starttls-imap-openssl() {
    local n=starttls-imap-openssl port=143
    dovecot_start
    cap_start $n "tcp port 143"
    s_client_cmd $n 1 'a1 LOGOUT' -nocommands -starttls imap -servername mail.example.test
    cap_stop $n
    dovecot_stop
    expect_count $n 'imap.request.command == "STARTTLS"' 1
    expect_count $n 'tls.handshake.type == 1' 1
    expect_count $n 'tls.handshake.type == 2 && tls.handshake.extensions.supported_version == 0x0304' 1
}

scenario_starttls-imap-curl() {
    local n=starttls-imap-curl
    dovecot_start
    cap_start $n "tcp port 143"
    client $n curl -sS --ssl-reqd -k -u alice:secret "imap://$server_addr/"
    cap_stop $n
    dovecot_stop
    expect_count $n 'imap.request.command == "STARTTLS"' 1
    expect_count $n 'tls.handshake.type == 1' 1
    expect_count $n 'tls.handshake.type == 2' 1
}

# openssl s_client forced to TLS 1.0 (and security level 0, without which
# OpenSSL 3.0 sends nothing) against dovecot, whose OpenSSL refuses TLS 1.0:
# the handshake fails with an alert right after STARTTLS.
scenario_starttls-imap-tls10-refused() {
    local n=starttls-imap-tls10-refused port=143 rc=0
    dovecot_start
    cap_start $n "tcp port 143"
    { sleep 1; printf 'a1 LOGOUT\r\n'; } |
        timeout 15 openssl s_client -connect "$server_addr:$port" -starttls imap \
            -servername mail.example.test -tls1 -cipher DEFAULT@SECLEVEL=0 \
            >>"$tmp/$n.client.log" 2>&1 || rc=$?
    [ "$rc" -eq 1 ] || {
        cat "$tmp/$n.client.log" >&2
        die "$n: s_client exited with $rc, expected 1"
    }
    cap_stop $n
    dovecot_stop
    expect_count $n 'imap.request.command == "STARTTLS"' 1
    expect_count $n 'tls.handshake.type == 1 && tls.handshake.version == 0x0301' 1
    expect_count $n 'tls.handshake.type == 2' 0
    expect_count $n 'tls.alert_message.desc' 1
}

scenario_starttls-pop3-openssl() {
    local n=starttls-pop3-openssl port=110
    dovecot_start
    cap_start $n "tcp port 110"
    s_client_cmd $n 1 'QUIT' -nocommands -starttls pop3 -servername mail.example.test
    cap_stop $n
    dovecot_stop
    expect_count $n 'pop.request.command == "STLS"' 1
    expect_count $n 'tls.handshake.type == 1' 1
    expect_count $n 'tls.handshake.type == 2' 1
}

scenario_starttls-pop3-curl() {
    local n=starttls-pop3-curl
    dovecot_start
    cap_start $n "tcp port 110"
    client $n curl -sS --ssl-reqd -k -u alice:secret "pop3://$server_addr/"
    cap_stop $n
    dovecot_stop
    expect_count $n 'pop.request.command == "STLS"' 1
    expect_count $n 'tls.handshake.type == 1' 1
    expect_count $n 'tls.handshake.type == 2' 1
}

# ---------------------------------------------------------------- PostgreSQL

pgbin=/usr/lib/postgresql/15/bin

# pg_start on|off: a private PostgreSQL 15 cluster (initdb in $tmp, run as
# the postgres user) on 127.0.0.3:5432 with ssl on or off; every local
# connection trusted.
pg_start() {
    local ssl=$1 d=$tmp/pg
    rm -rf "$d"
    mkdir -p "$d/sock"
    install -o postgres -m 600 "$key" "$d/key.pem"
    chown postgres "$d" "$d/sock"
    runuser -u postgres -- "$pgbin/initdb" -D "$d/data" -A trust -U postgres \
        >"$tmp/pg.initdb.log" 2>&1 || { cat "$tmp/pg.initdb.log" >&2; die "initdb failed"; }
    cat >>"$d/data/postgresql.conf" <<EOF
listen_addresses = '$server_addr'
port = 5432
unix_socket_directories = '$d/sock'
ssl = $ssl
ssl_cert_file = '$cert'
ssl_key_file = '$d/key.pem'
EOF
    printf 'local all all trust\nhost all all 127.0.0.0/8 trust\n' >"$d/data/pg_hba.conf"
    runuser -u postgres -- "$pgbin/pg_ctl" -D "$d/data" -l "$d/pg.log" -w start \
        >"$tmp/pg.start.log" 2>&1 || { cat "$tmp/pg.start.log" "$d/pg.log" >&2; die "postgres did not start"; }
    stoppers+=("runuser -u postgres -- '$pgbin/pg_ctl' -D '$d/data' -m fast -w stop")
    wait_listen postgres 5432
}
pg_stop() {
    runuser -u postgres -- "$pgbin/pg_ctl" -D "$tmp/pg/data" -m fast -w stop >/dev/null 2>&1 || true
    unset 'stoppers[-1]'
}

# psql with sslmode=require: SSLRequest, 'S', TLS (libpq 15, OpenSSL 3.0).
# The server's ssl_ecdh_curve is prime256v1 (PostgreSQL's default), the
# client's key share X25519: a HelloRetryRequest.
scenario_starttls-postgres-psql() {
    local n=starttls-postgres-psql
    pg_start on
    cap_start $n "tcp port 5432"
    client $n psql "host=$server_addr user=postgres dbname=postgres sslmode=require gssencmode=disable" \
        -c 'select version()'
    cap_stop $n
    pg_stop
    expect_count $n 'pgsql.type == "SSL request"' 1
    expect_count $n 'tls.handshake.type == 1' 2
    expect_count $n 'tls.handshake.type == 2' 2
}

# The server has ssl = off: it answers the SSLRequest with 'N', and psql
# (sslmode=prefer, the default) carries on in plaintext on the same
# connection.
scenario_starttls-postgres-refused() {
    local n=starttls-postgres-refused
    pg_start off
    cap_start $n "tcp port 5432"
    client $n psql "host=$server_addr user=postgres dbname=postgres sslmode=prefer gssencmode=disable" \
        -c 'select 1'
    cap_stop $n
    pg_stop
    expect_count $n 'pgsql.type == "SSL request"' 1
    expect_count $n 'tls' 0
}

# ---------------------------------------------------------------- vsftpd

# vsftpd_start: vsftpd 3.0.3 in the foreground on 127.0.0.3:21, anonymous
# (over TLS only), one file to fetch, passive data connections on port 40000
# only, TLS required on them (PROT P).
vsftpd_start() {
    local d=$tmp/vsftpd
    mkdir -p "$d/root" "$d/empty"
    printf 'hello over FTPS\n' >"$d/root/hello.txt"
    chmod 755 "$d/root" "$d/empty"
    cat >"$d/vsftpd.conf" <<EOF
listen=YES
listen_ipv6=NO
listen_address=$server_addr
listen_port=21
background=NO
anonymous_enable=YES
local_enable=NO
write_enable=NO
anon_root=$d/root
secure_chroot_dir=$d/empty
seccomp_sandbox=NO
pasv_enable=YES
pasv_min_port=40000
pasv_max_port=40000
ssl_enable=YES
allow_anon_ssl=YES
force_anon_logins_ssl=YES
force_anon_data_ssl=YES
ssl_ciphers=HIGH
rsa_cert_file=$cert
rsa_private_key_file=$key
vsftpd_log_file=$tmp/vsftpd.log
xferlog_enable=YES
EOF
    vsftpd "$d/vsftpd.conf" >"$tmp/vsftpd.start.log" 2>&1 &
    pids+=($!)
    wait_listen vsftpd 21
}
vsftpd_stop() {
    kill "${pids[-1]}" 2>/dev/null || true
    wait "${pids[-1]}" 2>/dev/null || true
}

# curl (OpenSSL) sends AUTH SSL (curl's default order: SSL, then TLS), gets
# 234, then PROT P and EPSV inside TLS; the data connection on port 40000
# starts with TLS.
scenario_starttls-ftp-curl() {
    local n=starttls-ftp-curl
    vsftpd_start
    cap_start $n "tcp port 21 or tcp port 40000"
    client $n curl -sS --ssl-reqd -k "ftp://$server_addr/hello.txt"
    cap_stop $n
    vsftpd_stop
    expect_count $n 'ftp.request.command == "AUTH"' 1
    expect_count $n 'ftp.response.code == 234' 1
    expect_count $n 'tcp.port == 40000 && tls.handshake.type == 1' 2
}

# lftp (GnuTLS) sends AUTH TLS, then PBSZ/PROT P inside TLS; the data
# connection on port 40000 starts with TLS.
scenario_starttls-ftp-lftp() {
    local n=starttls-ftp-lftp
    vsftpd_start
    cap_start $n "tcp port 21 or tcp port 40000"
    client $n lftp -u anonymous, -e "set ftp:ssl-force true; set ftp:ssl-protect-data true; \
set ssl:verify-certificate no; set ftp:passive-mode true; cat hello.txt; quit" "ftp://$server_addr"
    cap_stop $n
    vsftpd_stop
    expect_count $n 'ftp.request.command == "AUTH"' 1
    expect_count $n 'ftp.response.code == 234' 1
}

# ---------------------------------------------------------------- prosody

# XMPP client-to-server on 5222: <starttls/>, <proceed/>, TLS. Prosody 0.12
# in the foreground as root (run_as_root), c2s only, one virtual host.
scenario_starttls-xmpp-openssl() {
    local n=starttls-xmpp-openssl port=5222 d=$tmp/prosody
    mkdir -p "$d/data"
    cat >"$d/prosody.cfg.lua" <<EOF
run_as_root = true
daemonize = false
pidfile = "$d/prosody.pid"
data_path = "$d/data"
log = { info = "$tmp/prosody.log" }
interfaces = { "$server_addr" }
c2s_ports = { 5222 }
c2s_direct_tls_ports = { }
modules_enabled = { "tls", "saslauth", "disco", "ping" }
modules_disabled = { "s2s", "http", "bosh", "websocket" }
c2s_require_encryption = true
authentication = "internal_hashed"
ssl = { certificate = "$cert", key = "$key" }
VirtualHost "example.test"
EOF
    prosody --config "$d/prosody.cfg.lua" -F >"$tmp/prosody.start.log" 2>&1 &
    pids+=($!)
    wait_listen prosody 5222
    cap_start $n "tcp port 5222"
    s_client_cmd $n 1 '</stream:stream>' -nocommands -starttls xmpp -xmpphost example.test \
        -servername example.test
    cap_stop $n
    kill "${pids[-1]}" 2>/dev/null || true
    expect_count $n 'xmpp.starttls' 1
    expect_count $n 'xmpp.proceed' 1
    expect_count $n 'tls.handshake.type == 1' 1
    expect_count $n 'tls.handshake.type == 2' 1
}

# ---------------------------------------------------------------- slapd

# LDAP StartTLS (extended operation 1.3.6.1.4.1.1466.20037) on 389: slapd
# 2.5 and ldapsearch -ZZ, both on Debian's GnuTLS build of OpenLDAP.
scenario_starttls-ldap-ldapsearch() {
    local n=starttls-ldap-ldapsearch d=$tmp/slapd
    mkdir -p "$d/db"
    cat >"$d/slapd.conf" <<EOF
modulepath /usr/lib/ldap
moduleload back_mdb
include /etc/ldap/schema/core.schema
pidfile $d/slapd.pid
TLSCertificateFile $cert
TLSCertificateKeyFile $key
database mdb
suffix "dc=example,dc=test"
rootdn "cn=admin,dc=example,dc=test"
rootpw secret
directory $d/db
EOF
    slapd -d 0 -h "ldap://$server_addr/" -f "$d/slapd.conf" >"$tmp/slapd.log" 2>&1 &
    pids+=($!)
    wait_listen slapd 389
    cap_start $n "tcp port 389"
    client $n env LDAPTLS_REQCERT=never ldapsearch -ZZ -x -H "ldap://$server_addr/" \
        -D cn=admin,dc=example,dc=test -w secret -b '' -s base namingContexts
    cap_stop $n
    kill "${pids[-1]}" 2>/dev/null || true
    expect_count $n 'ldap.requestName == "1.3.6.1.4.1.1466.20037"' 1
    expect_count $n 'tls.handshake.type == 1' 1
    expect_count $n 'tls.handshake.type == 2' 1
}

# ---------------------------------------------------------------- MariaDB

# The MySQL protocol's SSL request on 3306: the server's greeting offers
# CLIENT_SSL, the client answers with a short login request that has it set
# (the SSL request), then TLS. MariaDB 10.11 server (a private datadir,
# grant tables skipped) and the mariadb client with --ssl.
scenario_starttls-mysql-mariadb() {
    local n=starttls-mysql-mariadb d=$tmp/mysql
    mkdir -p "$d/data" "$d/run"
    chown -R mysql:mysql "$d"
    mariadb-install-db --no-defaults --user=mysql --datadir="$d/data" --skip-test-db \
        >"$tmp/mysql.install.log" 2>&1 || { cat "$tmp/mysql.install.log" >&2; die "mariadb-install-db failed"; }
    mariadbd --no-defaults --user=mysql --datadir="$d/data" --socket="$d/run/mysqld.sock" \
        --pid-file="$d/run/mysqld.pid" --bind-address="$server_addr" --port=3306 \
        --skip-grant-tables --ssl-cert="$cert" --ssl-key="$key" --log-error="$tmp/mysql.log" \
        >/dev/null 2>&1 &
    pids+=($!)
    wait_listen mariadbd 3306
    cap_start $n "tcp port 3306"
    client $n mariadb --no-defaults -h "$server_addr" -P 3306 -u root --ssl \
        --disable-ssl-verify-server-cert -e 'select version()'
    cap_stop $n
    kill "${pids[-1]}" 2>/dev/null || true
    wait "${pids[-1]}" 2>/dev/null || true
    expect_count $n 'tls.handshake.type == 1' 1
    expect_count $n 'tls.handshake.type == 2' 1
}

# ---------------------------------------------------------------- main

for s in "${scenarios[@]}"; do
    log "$s"
    "scenario_$s"
done
log "done"
