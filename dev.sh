#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine: installs what is missing,
# builds with Ninja, then runs the sample (`./dev.sh sample`), the whole
# test suite (`./dev.sh test`), the benchmarks (`./dev.sh bench`) or the
# StableHLO conformance corpus on every device (`./dev.sh conformance`).
set -euo pipefail
cd "$(dirname "$0")"

packages=(cmake g++ ninja-build ccache pkg-config
  libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  glslang-dev glslang-tools spirv-tools spirv-headers libvkfft-dev
  libgtest-dev libgmock-dev libbenchmark-dev)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    local sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

build() {
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j "${VKXLA_JOBS:-2}"
}

# lavapipe and the loader want a runtime dir; CI machines often have none.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/vkxla-runtime-$(id -u)}"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

case "${1:-}" in
  sample)
    install_missing; build
    build/vkxla devices
    build/vkxla run samples/elementwise.hlo --input samples/x.npy --input samples/y.npy --print
    build/vkxla run samples/elementwise.mlir --input samples/x.npy --input samples/y.npy --print
    build/vkxla run samples/softmax_topk.hlo --input samples/x.npy --print
    build/vkxla run samples/mlp.hlo --input samples/x.npy --print
    ;;
  test)
    install_missing; build
    # The op tests run twice: on the full device, and with a capability mask
    # that makes lavapipe look like a phone without f64/i64/f16/int8/subgroups.
    VKXLA_VALIDATION=1 ctest --test-dir build --output-on-failure -j 2
    ;;
  bench)
    install_missing; build
    build/vkxla bench --markdown BENCHMARKS.md
    ;;
  conformance)
    install_missing; build
    build/vkxla conformance ../shared/conformance/stablehlo/interpret --device all --report conformance.md
    ;;
  *)
    echo "usage: ./dev.sh sample | test | bench | conformance" >&2; exit 2 ;;
esac
