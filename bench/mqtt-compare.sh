#!/bin/bash
# coney-perf mqtt against Coney, aedes and (when given) RabbitMQ's MQTT plugin, each scenario run
# against each broker in turn, two rounds. docs/PERFORMANCE.md, MQTT. Starts Coney and aedes
# itself (aedes is installed with npm into a temp dir, not a project dependency) and stops them;
# RabbitMQ is whatever listens on $RABBITMQ_MQTT_PORT (none by default: skipped).
# Usage: bash bench/mqtt-compare.sh   (after npm run build)
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
coney_port=${CONEY_MQTT_PORT:-18830}
aedes_port=${AEDES_MQTT_PORT:-18831}
npm install --prefix "$tmp/aedes" --no-save --silent aedes@1.2.0 >/dev/null
cat > "$tmp/aedes/server.mjs" <<'JS'
import { Aedes } from "aedes";
import { createServer } from "node:net";
const aedes = await Aedes.createBroker();
createServer(aedes.handle).listen(Number(process.argv[2]), "127.0.0.1");
JS
node "$tmp/aedes/server.mjs" "$aedes_port" & aedes_pid=$!
node bin/coney.js --mqtt-port "$coney_port" --amqp-port 0 --http-port off --prometheus-port off --web-mqtt-port off --mqtts-port off --data-dir "$tmp/coney" --log-level error & coney_pid=$!
trap 'kill $coney_pid $aedes_pid 2>/dev/null; wait $coney_pid $aedes_pid 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 2
declare -A url=([coney]="mqtt://guest:guest@127.0.0.1:$coney_port" [aedes]="mqtt://guest:guest@127.0.0.1:$aedes_port")
brokers="coney aedes"
if [ -n "${RABBITMQ_MQTT_PORT:-}" ]; then url[rabbitmq]="mqtt://guest:guest@127.0.0.1:$RABBITMQ_MQTT_PORT"; brokers="$brokers rabbitmq"; fi
for round in 1 2; do
  for scenario in "0 1" "1 1" "0 10" "1 10"; do
    set -- $scenario
    for b in $brokers; do
      out=$(node bin/coney-perf.js mqtt --url "${url[$b]}" --qos "$1" --subscribers "$2" -s 64 -z 5 | tail -3 | tr '\n' ' ')
      echo "round $round, QoS $1, 1 -> $2, $b: $out"
    done
  done
done
