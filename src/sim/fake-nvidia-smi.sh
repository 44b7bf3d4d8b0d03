#!/bin/sh
# A fake nvidia-smi for tests and the demo (see src/sim/fake-nvidia-smi.ts).
# Prints the fixture file named by $LLMGW_FAKE_GPUS: CSV rows in the order of
# the agent's --query-gpu fields, whatever the arguments. Without the variable
# it fails the way nvidia-smi does on a node whose driver is not loaded.
if [ -z "$LLMGW_FAKE_GPUS" ]; then
  echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." >&2
  exit 9
fi
exec cat "$LLMGW_FAKE_GPUS"
