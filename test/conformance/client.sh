#!/usr/bin/env bash
# The conformance suite's --command: our client (client.ts) on the app's own Node, from the repo root.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec "${AGENTCSD_NODE:-node}" --import tsx test/conformance/client.ts "$@"
