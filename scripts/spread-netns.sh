#!/usr/bin/env bash
# A spread cluster (`--cluster-mode spread`) on "machines of their own" on one host: one Linux
# network namespace per node (cz1..cz3), each with its own address, network stack and routes,
# joined by veth pairs to a bridge in the host namespace where etcd listens. Issue 42's brief
# s6-i42-netns; run by hand as root (CI may lack CAP_NET_ADMIN), driven by
# scripts/spread-netns-check.mjs. Every node uses the SAME ports (5672, 15672, 25672, ...) in its
# own namespace, as three machines would — nothing may rely on ports differing between nodes.
#
#   scripts/spread-netns.sh up              bridge, namespaces, etcd, three nodes; waits until linked
#   scripts/spread-netns.sh down            stops everything, deletes namespaces, veths, bridge, state
#   scripts/spread-netns.sh start czN       (re)starts one node on its data dir (after a kill -9)
#   scripts/spread-netns.sh kill czN        kill -9 of one node
#   scripts/spread-netns.sh cut czN         real partition: its veth end down (cut from etcd and the others)
#   scripts/spread-netns.sh heal czN        its veth end up again
#   scripts/spread-netns.sh cut-etcd czN    cut from etcd only: a blackhole route to etcd's address in its namespace
#   scripts/spread-netns.sh heal-etcd czN   the blackhole route removed
#   scripts/spread-netns.sh status
#
# Addresses: bridge cz-br0 10.77.0.1/24 (the host's side, the source of host clients); etcd on a
# second bridge address, 10.77.0.2, so a node can be cut from etcd alone by a route without
# cutting it from the host's clients; node czN at 10.77.0.1N (10.77.0.11..13).
# Environment: CONEY_NETNS_DIR (state, logs, data; default /tmp/coney-netns), CONEY_NETNS_LEASE
# (etcd lease TTL in seconds, default 3), CONEY_NETNS_ETCD_PORT (default 23979).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="${CONEY_NETNS_DIR:-/tmp/coney-netns}"
LEASE="${CONEY_NETNS_LEASE:-3}"
ETCD_PORT="${CONEY_NETNS_ETCD_PORT:-23979}"
ETCD_PEER_PORT=$((ETCD_PORT + 1))
BRIDGE=cz-br0
HOST_IP=10.77.0.1
ETCD_IP=10.77.0.2
NODES=(cz1 cz2 cz3)
ETCD_BIN="${ETCD_BIN:-/usr/bin/etcd}"

die() { echo "spread-netns: $*" >&2; exit 1; }
node_ip() { echo "10.77.0.1${1#cz}"; }
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

check_root() {
  [ "$(id -u)" = 0 ] || die "must run as root (network namespaces need CAP_NET_ADMIN)"
  if ! ip netns add cz-probe 2>/dev/null; then
    die "'ip netns add' is refused here (no CAP_NET_ADMIN, or no netns support): this script needs a machine where root may create network namespaces"
  fi
  ip netns del cz-probe
}

net_up() {
  ip link show "$BRIDGE" >/dev/null 2>&1 || ip link add "$BRIDGE" type bridge
  ip addr replace "$HOST_IP/24" dev "$BRIDGE"
  ip addr replace "$ETCD_IP/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  for n in "${NODES[@]}"; do
    ip netns list | grep -qw "^$n" || ip netns add "$n"
    if ! ip link show "$n-h" >/dev/null 2>&1; then
      ip link add "$n-h" type veth peer name "$n-n"
      ip link set "$n-n" netns "$n"
    fi
    ip link set "$n-h" master "$BRIDGE" up
    ip -n "$n" link set lo up
    ip -n "$n" addr replace "$(node_ip "$n")/24" dev "$n-n"
    ip -n "$n" link set "$n-n" up
  done
}

etcd_up() {
  mkdir -p "$STATE"
  if alive "$STATE/etcd.pid"; then return; fi
  "$ETCD_BIN" --data-dir "$STATE/etcd" --name cz-etcd \
    --listen-client-urls "http://$ETCD_IP:$ETCD_PORT" --advertise-client-urls "http://$ETCD_IP:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "cz-etcd=http://127.0.0.1:$ETCD_PEER_PORT" --log-level error >"$STATE/etcd.log" 2>&1 &
  echo $! >"$STATE/etcd.pid"
  for _ in $(seq 1 50); do
    curl -sf "http://$ETCD_IP:$ETCD_PORT/health" >/dev/null 2>&1 && return
    sleep 0.2
  done
  die "etcd did not come up on $ETCD_IP:$ETCD_PORT (see $STATE/etcd.log)"
}

node_start() {
  local n="$1" ip
  ip="$(node_ip "$n")"
  alive "$STATE/$n.pid" && { echo "$n already running (pid $(cat "$STATE/$n.pid"))"; return; }
  mkdir -p "$STATE/$n"
  # setsid: its own process group, so `down` stops exactly it; the log is appended across restarts.
  ip netns exec "$n" setsid node --single-threaded-gc "$ROOT/bin/coney.js" --cluster-mode spread \
    --etcd-endpoints "http://$ETCD_IP:$ETCD_PORT" --etcd-lease-ttl "$LEASE" --cluster-name netns \
    --node-name "coney@$n" --advertise-address "$ip" --bind "$ip" \
    --amqp-port 5672 --http-port 15672 --cluster-port 25672 --prometheus-port 15692 --stream-port 5552 \
    --mqtt-port 1883 --stomp-port 61613 --web-mqtt-port off --web-stomp-port off \
    --loopback-users none --data-dir "$STATE/$n/data" --log-level info >>"$STATE/$n.log" 2>&1 </dev/null &
  echo $! >"$STATE/$n.pid"
  echo "$n started (pid $!, $ip)"
}

wait_linked() {
  local n ip
  for n in "${NODES[@]}"; do
    ip="$(node_ip "$n")"
    for _ in $(seq 1 150); do
      [ "$(curl -sf -u guest:guest "http://$ip:15672/api/nodes" 2>/dev/null | grep -o '"running":true' | wc -l)" = 3 ] && break
      sleep 0.4
    done
    [ "$(curl -sf -u guest:guest "http://$ip:15672/api/nodes" 2>/dev/null | grep -o '"running":true' | wc -l)" = 3 ] ||
      die "$n ($ip) does not list three running nodes (see $STATE/$n.log)"
  done
  echo "three nodes running and linked"
}

stop_pid() {
  local f="$1"
  if alive "$f"; then
    local p; p="$(cat "$f")"
    kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null || true
  fi
  rm -f "$f"
}

down() {
  for n in "${NODES[@]}"; do stop_pid "$STATE/$n.pid"; done
  stop_pid "$STATE/etcd.pid"
  for n in "${NODES[@]}"; do
    # A process left in a namespace (not ours by pid file) is reported, not killed by name.
    if ip netns list | grep -qw "^$n"; then
      local left; left="$(ip netns pids "$n" 2>/dev/null || true)"
      [ -z "$left" ] || echo "spread-netns: processes still in $n: $left" >&2
      ip netns del "$n"
    fi
    ip link del "$n-h" 2>/dev/null || true
  done
  ip link del "$BRIDGE" 2>/dev/null || true
  rm -rf "$STATE"
  echo "down: no cz* namespace, veth or bridge left"
}

status() {
  ip netns list | grep -E '^cz' || echo "(no cz namespaces)"
  ip -br link | grep -E '^cz' || echo "(no cz links)"
  for n in "${NODES[@]}"; do
    if alive "$STATE/$n.pid"; then echo "$n pid $(cat "$STATE/$n.pid") $(node_ip "$n")"; else echo "$n not running"; fi
  done
}

valid_node() { case "${1:-}" in cz1|cz2|cz3) ;; *) die "expected a node name cz1, cz2 or cz3, got '${1:-}'";; esac; }

cmd="${1:-}"
case "$cmd" in
  up)
    check_root
    [ -f "$ROOT/dist/src/main.js" ] || die "build first: npm run build"
    net_up; etcd_up
    for n in "${NODES[@]}"; do node_start "$n"; done
    wait_linked ;;
  down) down ;;
  start) valid_node "${2:-}"; node_start "$2" ;;
  kill) valid_node "${2:-}"; alive "$STATE/$2.pid" || die "$2 is not running"; kill -KILL "$(cat "$STATE/$2.pid")"; rm -f "$STATE/$2.pid"; echo "$2 killed (-9)" ;;
  cut) valid_node "${2:-}"; ip -n "$2" link set "$2-n" down; echo "$2 cut: its veth end down" ;;
  heal) valid_node "${2:-}"; ip -n "$2" link set "$2-n" up; echo "$2 healed: its veth end up" ;;
  cut-etcd) valid_node "${2:-}"; ip -n "$2" route replace blackhole "$ETCD_IP/32"; echo "$2 cut from etcd ($ETCD_IP) only" ;;
  heal-etcd) valid_node "${2:-}"; ip -n "$2" route del blackhole "$ETCD_IP/32" 2>/dev/null || true; echo "$2 reaches etcd again" ;;
  status) status ;;
  *) die "usage: $0 up|down|status|start czN|kill czN|cut czN|heal czN|cut-etcd czN|heal-etcd czN" ;;
esac
