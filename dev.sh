#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine: installs what is missing,
# builds with Ninja, then runs the sample (`./dev.sh sample`), the whole
# test suite (`./dev.sh test`), the benchmarks (`./dev.sh bench`), the
# StableHLO conformance corpus on every device (`./dev.sh conformance`), the
# libFuzzer targets (`./dev.sh fuzz [SECONDS]`, each for SECONDS, 60 by
# default) or the whole suite under sanitizers (`./dev.sh sanitize`:
# ASan + UBSan; `./dev.sh sanitize thread`: TSan over the threading tests).
set -euo pipefail
cd "$(dirname "$0")"

packages=(cmake g++ ninja-build ccache pkg-config
  libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers
  glslang-dev glslang-tools spirv-tools libvkfft-dev
  libgtest-dev
  libcli11-dev nlohmann-json3-dev libzip-dev
  python3-dev pybind11-dev python3-numpy python3-pytest
  libopenmpi-dev openmpi-bin)

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

# The Python module is built for Debian's interpreter (python3-numpy and
# python3-pytest are its packages), whatever `python3` is first on PATH.
build() {
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE=/usr/bin/python3 >/dev/null
  cmake --build build -j "${VKXLA_JOBS:-2}"
}

# samples/consumer built as users build it: with find_package(vkxla) from
# an installed prefix, with pkg-config, and as a subproject; each must run.
consumer_checks() {
  local prefix="$PWD/build/install-check"
  rm -rf "$prefix" build/consumer build/consumer-subproject
  cmake --install build --prefix "$prefix" >/dev/null
  cmake -S samples/consumer -B build/consumer -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build build/consumer >/dev/null
  build/consumer/vkxla_consumer
  g++ -std=c++20 -o build/consumer/pkg_config_consumer samples/consumer/consumer.cc \
    $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs vkxla)
  build/consumer/pkg_config_consumer >/dev/null
  PYTHONPATH="$(echo "$prefix"/lib/python3*/dist-packages)" /usr/bin/python3 -c \
    'import vkxla; print("python:", vkxla.__version__, vkxla.devices()[0]["name"])'
  cmake -S samples/consumer -B build/consumer-subproject -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DVKXLA_SOURCE_DIR="$PWD" >/dev/null
  cmake --build build/consumer-subproject -j "${VKXLA_JOBS:-2}" >/dev/null
  build/consumer-subproject/vkxla_consumer >/dev/null
  echo "consumer checks passed (installed package, pkg-config, Python module, subproject)"
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
    consumer_checks
    ;;
  bench)
    install_missing; build
    build/vkxla bench --markdown BENCHMARKS.md
    build/vkxla bench --chart-from BENCHMARKS.md --svg BENCHMARKS.svg  # every recorded row, as a chart
    ;;
  fuzz)
    packages+=(clang libclang-rt-14-dev); install_missing  # libFuzzer's runtime is only recommended by clang
    seconds="${2:-60}"
    CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DVKXLA_FUZZ=ON -DVKXLA_SANITIZE=address,undefined -DVKXLA_BUILD_PYTHON=OFF -DBUILD_TESTING=OFF >/dev/null
    cmake --build build-fuzz -j "${VKXLA_JOBS:-2}" --target fuzz_hlo_parser fuzz_stablehlo_reader fuzz_npy
    mkdir -p build-fuzz/findings
    extra_mlir=(); [[ -d ../shared/conformance/stablehlo/interpret ]] && extra_mlir=(../shared/conformance/stablehlo/interpret)
    for spec in hlo_parser:hlo stablehlo_reader:mlir npy:npy; do
      target="${spec%%:*}"; kind="${spec##*:}"
      corpus="build-fuzz/corpus/$kind"; mkdir -p "$corpus"
      seeds=(fuzz/seeds/"$kind" samples); [[ $kind == mlir ]] && seeds+=("${extra_mlir[@]}")
      echo "fuzzing $target for ${seconds}s"
      # Findings (crashes, sanitizer reports, leaks, timeouts over 10 s,
      # allocations over 4.3 GiB: more than any literal may hold) stop the run and leave a reproducer in
      # build-fuzz/findings.
      # The fuzzer's own status decides (a pipeline's status under pipefail,
      # or PIPESTATUS after `|| true`, would hide it).
      log="build-fuzz/$target.log"
      fuzz_status=0
      build-fuzz/fuzz/fuzz_"$target" "$corpus" "${seeds[@]}" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=8192 -malloc_limit_mb=4400 -max_len="${VKXLA_FUZZ_MAX_LEN:-4096}" -print_final_stats=1 \
        -artifact_prefix=build-fuzz/findings/"$target"- >"$log" 2>&1 || fuzz_status=$?
      grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|==[0-9]+==|SUMMARY|artifact)" "$log" || true
      [[ $fuzz_status -eq 0 ]] || { echo "fuzz_$target found a problem (exit $fuzz_status; see build-fuzz/findings and $log)" >&2; exit 1; }
    done
    ;;
  sanitize)
    install_missing
    kind="${2:-address,undefined}"
    dir="build-${kind//,/-}"
    # (The Python module is left out: an instrumented module cannot load
    # into an uninstrumented interpreter.)
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVKXLA_SANITIZE="$kind" -DVKXLA_BUILD_PYTHON=OFF >/dev/null
    cmake --build "$dir" -j "${VKXLA_JOBS:-2}"
    # The Vulkan driver is not instrumented: leaks it keeps until exit are
    # its own (tests/lsan_suppressions.txt names them).
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    export LSAN_OPTIONS="suppressions=$PWD/tests/lsan_suppressions.txt" TSAN_OPTIONS="halt_on_error=1:suppressions=$PWD/tests/tsan_suppressions.txt"
    if [[ $kind == thread ]]; then
      "$dir"/tests/vkxla_tests --gtest_filter='Concurrency*:Collectives*'
      "$dir"/tests/vkxla_plan_tests --gtest_filter='Collectives*'
    else
      VKXLA_VALIDATION=1 ctest --test-dir "$dir" --output-on-failure -j 2 --timeout 3600
    fi
    ;;
  conformance)
    install_missing; build
    build/vkxla conformance ../shared/conformance/stablehlo/interpret --device all --report conformance.md --html conformance.html
    ;;
  *)
    echo "usage: ./dev.sh sample | test | bench | conformance | fuzz [SECONDS] | sanitize [thread]" >&2; exit 2 ;;
esac
