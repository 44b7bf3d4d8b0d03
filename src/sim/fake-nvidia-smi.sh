#!/bin/sh
# A fake nvidia-smi for tests and the demo (see src/sim/fake-nvidia-smi.ts).
# Prints from the fixture file named by $LLMGW_FAKE_GPUS:
#   --query-compute-apps=…  the "gpu_uuid, pid" rows after a "# compute-apps" line
#                           (none when the fixture has no such line); a line
#                           "# compute-apps: fail" makes this query fail instead
#   anything else           the GPU rows before it: CSV in the order of the
#                           agent's --query-gpu fields (the last, pci.bus_id,
#                           is what kernel-log Xids are matched by), whatever the arguments
# Without the variable it fails the way nvidia-smi does on a node whose driver
# is not loaded.
if [ -z "$LLMGW_FAKE_GPUS" ]; then
  echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." >&2
  exit 9
fi
case "$*" in
  *--query-compute-apps*)
    if grep -q '^# compute-apps: fail' "$LLMGW_FAKE_GPUS"; then
      echo "Failed to query compute processes: Unknown Error" >&2
      exit 15
    fi
    sed -n '/^# compute-apps/,$p' "$LLMGW_FAKE_GPUS" | sed '1d'
    ;;
  *)
    exec sed '/^# compute-apps/,$d' "$LLMGW_FAKE_GPUS"
    ;;
esac
