# Sourced by ./gstm, ./gstm-spark and ./gstm-benchmarks before they build: unless
# GSTM_KERNEL_ARCHS is set, compile the CUDA kernels only for the GPU of this machine, and none
# where there is no GPU (the JVM engine runs). The full set for sm_80 and sm_90 takes about 13
# CPU-minutes, most of a first run on a small machine; `mvn verify` and
# scripts/build-gpu-bundle.sh keep it.
if [ -z "${GSTM_KERNEL_ARCHS+x}" ]; then
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 \
    | tr -d ' .' || true)
  if [[ $cap =~ ^[0-9]+$ ]]; then
    export GSTM_KERNEL_ARCHS=$cap
  else
    export GSTM_KERNEL_ARCHS=none
    echo "gstm: no GPU found (nvidia-smi): building without CUDA kernels, the JVM engine runs" \
      "(set GSTM_KERNEL_ARCHS=\"80 90\" to build them anyway)" >&2
  fi
fi
